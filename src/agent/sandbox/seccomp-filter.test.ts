// The seccomp program as the kernel runs it: decoded from its bytes and interpreted for the system
// calls it must deny (AF_VSOCK sockets, io_uring), those it must let through (every other socket
// family, ordinary calls), and other ABIs (killed). bwrap applying it is exercised by
// test/agent/exec-sandbox-secrets.test.ts.
import { describe, expect, it } from "vitest";
import {
  AF_VSOCK,
  BPF,
  SECCOMP_DATA,
  SECCOMP_RET,
  X32_SYSCALL_BIT,
  seccompFilterFor,
} from "./seccomp-filter.ts";

interface Decoded {
  code: number;
  jumpTrue: number;
  jumpFalse: number;
  value: number;
}

function decode(program: Buffer): Decoded[] {
  expect(program.length % 8).toBe(0);
  const instructions: Decoded[] = [];
  for (let offset = 0; offset < program.length; offset += 8)
    instructions.push({
      code: program.readUInt16LE(offset),
      jumpTrue: program.readUInt8(offset + 2),
      jumpFalse: program.readUInt8(offset + 3),
      value: program.readUInt32LE(offset + 4),
    });
  return instructions;
}

/** Runs the program on one seccomp_data as the kernel would; returns the action. */
function run(program: Buffer, data: { arch: number; nr: number; firstArgument?: number }): number {
  const instructions = decode(program);
  let accumulator = 0;
  for (let counter = 0; counter < instructions.length;) {
    const instruction = instructions[counter];
    if (instruction === undefined) throw new Error("ran off the end");
    switch (instruction.code) {
      case BPF.LD_W_ABS:
        if (instruction.value === SECCOMP_DATA.nr) accumulator = data.nr >>> 0;
        else if (instruction.value === SECCOMP_DATA.arch) accumulator = data.arch >>> 0;
        else if (instruction.value === SECCOMP_DATA.firstArgumentLow)
          accumulator = (data.firstArgument ?? 0) >>> 0;
        else throw new Error(`loads offset ${instruction.value}`);
        counter++;
        break;
      case BPF.JEQ_K:
      case BPF.JGE_K: {
        const taken =
          instruction.code === BPF.JEQ_K
            ? accumulator === instruction.value
            : accumulator >= instruction.value;
        counter += 1 + (taken ? instruction.jumpTrue : instruction.jumpFalse);
        break;
      }
      case BPF.RET_K:
        return instruction.value;
      default:
        throw new Error(`unknown opcode ${instruction.code}`);
    }
  }
  throw new Error("ran off the end");
}

const DENIED = (SECCOMP_RET.ERRNO | 1) >>> 0;
const ALLOWED = SECCOMP_RET.ALLOW;
const KILLED = SECCOMP_RET.KILL_PROCESS;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_NETLINK = 16;

describe("seccompFilterFor", () => {
  const cases = [
    {
      architecture: "x64",
      audit: 0xc000003e,
      socket: 41,
      socketpair: 53,
      read: 0,
      ptrace: 101,
      foreign: 0x40000003, // AUDIT_ARCH_I386
    },
    {
      architecture: "arm64",
      audit: 0xc00000b7,
      socket: 198,
      socketpair: 199,
      read: 63,
      ptrace: 117,
      foreign: 0x40000028, // AUDIT_ARCH_ARM
    },
  ];
  for (const known of cases)
    it(`denies AF_VSOCK sockets and io_uring on ${known.architecture}, and nothing else`, () => {
      const filter = seccompFilterFor(known.architecture);
      if (filter === undefined) throw new Error("no filter");
      const call = (nr: number, firstArgument?: number, arch = known.audit): number =>
        run(filter.program, { arch, nr, firstArgument });
      expect(call(known.socket, AF_VSOCK)).toBe(DENIED);
      expect(call(known.socketpair, AF_VSOCK)).toBe(DENIED);
      for (const nr of [425, 426, 427]) expect(call(nr)).toBe(DENIED);
      for (const domain of [AF_UNIX, AF_INET, AF_NETLINK]) {
        expect(call(known.socket, domain)).toBe(ALLOWED);
        expect(call(known.socketpair, domain)).toBe(ALLOWED);
      }
      expect(call(known.read)).toBe(ALLOWED);
      expect(call(known.ptrace)).toBe(ALLOWED);
      // Another ABI's numbers mean other calls (i386's 359 is socket): not let through.
      expect(call(359, AF_VSOCK, known.foreign)).toBe(KILLED);
      expect(call(known.read, undefined, known.foreign)).toBe(KILLED);
      expect(filter.description).toContain("AF_VSOCK");
    });

  it("kills x32 system calls on x86_64 (they share its audit arch)", () => {
    const filter = seccompFilterFor("x64");
    if (filter === undefined) throw new Error("no filter");
    expect(
      run(filter.program, { arch: 0xc000003e, nr: X32_SYSCALL_BIT | 41, firstArgument: AF_VSOCK }),
    ).toBe(KILLED);
  });

  it("writes no filter for an architecture it has no numbers for", () => {
    expect(seccompFilterFor("riscv64")).toBeUndefined();
    expect(seccompFilterFor("ia32")).toBeUndefined();
  });
});
