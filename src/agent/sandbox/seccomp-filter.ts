// The seccomp filter bwrap installs before it runs a command (`--seccomp FD`): a classic BPF
// program that makes the few system calls the mounts and namespaces cannot confine fail with
// EPERM. AF_VSOCK sockets reach the hypervisor's host (and WSL's Windows side) whatever the
// network namespace; io_uring creates sockets and opens files without the system calls a filter
// sees, so it goes too. ptrace stays: the PID namespace already limits it to the command's own
// processes, and debuggers and `strace` in a test suite need it.

/** The architectures a filter is written for, by Node's name. */
export type FilterArchitecture = "x64" | "arm64";

export interface SeccompFilter {
  /** struct sock_filter[]: 8 bytes per instruction, in this machine's (little-endian) order. */
  program: Buffer;
  /** One line for doctor. */
  description: string;
}

/** What a system call is denied on (`domain` set: only when socket()'s first argument is it). */
export interface DeniedCall {
  name: string;
  number: number;
  domain?: number;
}

export const AF_VSOCK = 40;
/** Where bwrap finds the program: the first descriptor after stdin, stdout and stderr. */
export const SECCOMP_DESCRIPTOR = 3;
const EPERM = 1;

const ARCHITECTURES: Record<
  FilterArchitecture,
  { audit: number; name: string; syscalls: Record<string, number> }
> = {
  x64: {
    audit: 0xc000003e, // AUDIT_ARCH_X86_64
    name: "x86_64",
    syscalls: {
      socket: 41,
      socketpair: 53,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
    },
  },
  arm64: {
    audit: 0xc00000b7, // AUDIT_ARCH_AARCH64
    name: "aarch64",
    syscalls: {
      socket: 198,
      socketpair: 199,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
    },
  },
};

/** On x86_64 the x32 ABI shares the audit arch and sets this bit in the number. */
export const X32_SYSCALL_BIT = 0x40000000;

// Classic BPF opcodes and seccomp's return values (linux/filter.h, linux/seccomp.h).
export const BPF = {
  LD_W_ABS: 0x20,
  JEQ_K: 0x15,
  JGE_K: 0x35,
  RET_K: 0x06,
} as const;
export const SECCOMP_RET = {
  KILL_PROCESS: 0x80000000,
  ERRNO: 0x00050000,
  ALLOW: 0x7fff0000,
} as const;
/** Offsets in struct seccomp_data: nr, arch, then args[0]'s low half (little-endian). */
export const SECCOMP_DATA = { nr: 0, arch: 4, firstArgumentLow: 16 } as const;

export function deniedCalls(architecture: FilterArchitecture): DeniedCall[] {
  const numbers = ARCHITECTURES[architecture].syscalls;
  return Object.entries(numbers).map(([name, number]) =>
    name === "socket" || name === "socketpair"
      ? { name, number, domain: AF_VSOCK }
      : { name, number },
  );
}

/** The filter for `architecture` (default: this process's), or undefined where none is written. */
export function seccompFilterFor(architecture: string = process.arch): SeccompFilter | undefined {
  if (!isFilterArchitecture(architecture)) return undefined;
  const { name } = ARCHITECTURES[architecture];
  return {
    program: assemble(architecture),
    description: `seccomp (${name}): socket() and socketpair() for AF_VSOCK, io_uring_setup, io_uring_enter and io_uring_register fail with EPERM; other architectures' system calls${architecture === "x64" ? " (i386, x32)" : " (arm32)"} kill the command`,
  };
}

/** Doctor's line where there is no filter. */
export function missingFilterDescription(architecture: string = process.arch): string {
  return `no seccomp filter for ${architecture}: AF_VSOCK sockets and io_uring stay open to commands (filters exist for x64 and arm64)`;
}

function isFilterArchitecture(architecture: string): architecture is FilterArchitecture {
  return architecture === "x64" || architecture === "arm64";
}

interface Instruction {
  code: number;
  /** Jump targets as labels, resolved to offsets when assembled. */
  whenTrue?: string;
  whenFalse?: string;
  value: number;
  label?: string;
}

function assemble(architecture: FilterArchitecture): Buffer {
  const { audit } = ARCHITECTURES[architecture];
  const calls = deniedCalls(architecture);
  const load = (offset: number): Instruction => ({ code: BPF.LD_W_ABS, value: offset });
  const jumpIfEqual = (value: number, whenTrue: string, whenFalse = "next"): Instruction => ({
    code: BPF.JEQ_K,
    value,
    whenTrue,
    whenFalse,
  });
  const instructions: Instruction[] = [
    // A system call of another ABI (i386 through int 0x80, arm32) has other numbers: refused.
    load(SECCOMP_DATA.arch),
    jumpIfEqual(audit, "next", "kill"),
    load(SECCOMP_DATA.nr),
  ];
  if (architecture === "x64")
    instructions.push({
      code: BPF.JGE_K,
      value: X32_SYSCALL_BIT,
      whenTrue: "kill",
      whenFalse: "next",
    });
  for (const call of calls)
    instructions.push(jumpIfEqual(call.number, call.domain === undefined ? "deny" : "domain"));
  instructions.push(
    { code: BPF.RET_K, value: SECCOMP_RET.ALLOW },
    { ...load(SECCOMP_DATA.firstArgumentLow), label: "domain" },
    jumpIfEqual(AF_VSOCK, "deny"),
    { code: BPF.RET_K, value: SECCOMP_RET.ALLOW },
    { code: BPF.RET_K, value: SECCOMP_RET.ERRNO | EPERM, label: "deny" },
    { code: BPF.RET_K, value: SECCOMP_RET.KILL_PROCESS, label: "kill" },
  );
  const labels = new Map<string, number>();
  instructions.forEach((instruction, index) => {
    if (instruction.label !== undefined) labels.set(instruction.label, index);
  });
  const offset = (from: number, target: string | undefined): number => {
    if (target === undefined || target === "next") return 0;
    const index = labels.get(target);
    if (index === undefined) throw new Error(`seccomp filter: no label ${target}`);
    return index - from - 1;
  };
  const program = Buffer.alloc(instructions.length * 8);
  instructions.forEach((instruction, index) => {
    program.writeUInt16LE(instruction.code, index * 8);
    program.writeUInt8(offset(index, instruction.whenTrue), index * 8 + 2);
    program.writeUInt8(offset(index, instruction.whenFalse), index * 8 + 3);
    program.writeUInt32LE(instruction.value >>> 0, index * 8 + 4);
  });
  return program;
}
