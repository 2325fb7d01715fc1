// Reading a CUDA library's architectures from its ELF `.nv_fatbin` section: a small ELF written
// here with known entries, the prebuilt ggml-cuda node-llama-cpp installed (when present), and
// the rule that decides between machine code, a JIT at first load, and nothing that runs.
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { suiteDirectory } from "../support/suite-directory.ts";
import { cudaCodeForDevice } from "../../src/engines/llama-cpp/device/cuda-code-for-device.ts";
import { readCudaArchitectures } from "../../src/engines/llama-cpp/device/cuda-fatbin.ts";

/** A fat binary: its 16-byte header, then per entry a 64-byte header and a payload. */
function fatbin(entries: Array<{ kind: "ptx" | "elf"; sm: number; payload: number }>): Buffer {
  const parts = entries.map(({ kind, sm, payload }) => {
    const header = Buffer.alloc(64);
    header.writeUInt16LE(kind === "ptx" ? 1 : 2, 0);
    header.writeUInt32LE(64, 4);
    header.writeBigUInt64LE(BigInt(payload), 8);
    header.writeUInt32LE(sm, 28);
    return Buffer.concat([header, Buffer.alloc(payload, 0xab)]);
  });
  const body = Buffer.concat(parts);
  const header = Buffer.alloc(16);
  header.writeUInt32LE(0xba55ed50, 0);
  header.writeUInt16LE(1, 4);
  header.writeUInt16LE(16, 6);
  header.writeBigUInt64LE(BigInt(body.length), 8);
  return Buffer.concat([header, body]);
}

/** A 64-bit little-endian ELF with a null section, `.nv_fatbin` and the section-name table. */
function elfWithFatbin(section: Buffer): Buffer {
  const names = Buffer.from("\0.nv_fatbin\0.shstrtab\0", "latin1");
  const sectionOffset = 64;
  const namesOffset = sectionOffset + section.length;
  const tableOffset = namesOffset + names.length;
  const header = Buffer.alloc(64);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = 2;
  header[5] = 1;
  header.writeBigUInt64LE(BigInt(tableOffset), 0x28);
  header.writeUInt16LE(64, 0x3a);
  header.writeUInt16LE(3, 0x3c);
  header.writeUInt16LE(2, 0x3e);
  const table = Buffer.alloc(64 * 3);
  const entry = (index: number, nameOffset: number, offset: number, size: number) => {
    table.writeUInt32LE(nameOffset, index * 64);
    table.writeBigUInt64LE(BigInt(offset), index * 64 + 0x18);
    table.writeBigUInt64LE(BigInt(size), index * 64 + 0x20);
  };
  entry(1, 1, sectionOffset, section.length);
  entry(2, 12, namesOffset, names.length);
  return Buffer.concat([header, section, names, table]);
}

describe("readCudaArchitectures", () => {
  const inDirectory = suiteDirectory("spark-fatbin-");

  it("lists machine code and PTX across the fat binaries of the section, padding between", async () => {
    const path = inDirectory("libggml-cuda.so");
    const section = Buffer.concat([
      fatbin([
        { kind: "ptx", sm: 80, payload: 40 },
        { kind: "elf", sm: 86, payload: 24 },
      ]),
      Buffer.alloc(8),
      fatbin([
        { kind: "elf", sm: 120, payload: 8 },
        { kind: "ptx", sm: 90, payload: 16 },
        { kind: "elf", sm: 86, payload: 8 },
      ]),
    ]);
    await writeFile(path, elfWithFatbin(section));
    expect(await readCudaArchitectures(path)).toEqual({ sass: [86, 120], ptx: [80, 90] });
  });

  it("answers undefined for a file that is not an ELF with a fat binary", async () => {
    const path = inDirectory("notes.txt");
    await writeFile(
      path,
      "not an ELF file at all, just text that is long enough to read".repeat(2),
    );
    expect(await readCudaArchitectures(path)).toBeUndefined();
    const empty = inDirectory("empty.so");
    await writeFile(empty, elfWithFatbin(Buffer.alloc(0)));
    expect(await readCudaArchitectures(empty)).toEqual({ sass: [], ptx: [] });
  });

  const prebuilt = (() => {
    try {
      const cudaPackage = createRequire(import.meta.url).resolve("@node-llama-cpp/linux-x64-cuda");
      return join(dirname(cudaPackage), "..", "bins", "linux-x64-cuda", "libggml-cuda.so");
    } catch {
      return undefined;
    }
  })();
  it.skipIf(prebuilt === undefined || !existsSync(prebuilt))(
    "reads node-llama-cpp's prebuilt CUDA library: no machine code for an H100 (skipped where the linux-x64-cuda package is not installed)",
    async () => {
      const architectures = await readCudaArchitectures(prebuilt as string);
      expect(architectures?.sass.length).toBeGreaterThan(0);
      expect(
        architectures === undefined ? undefined : cudaCodeForDevice(architectures, "9.0").kind,
      ).toBe(architectures?.sass.includes(90) === true ? "sass" : "ptx-jit");
    },
  );
});

describe("cudaCodeForDevice", () => {
  const prebuilt = { sass: [86, 89, 120, 121], ptx: [75, 80, 90] };
  it("runs machine code of the same major version and an equal or older minor one", () => {
    expect(cudaCodeForDevice(prebuilt, "8.6")).toEqual({ kind: "sass", architecture: 86 });
    expect(cudaCodeForDevice(prebuilt, "8.9")).toEqual({ kind: "sass", architecture: 89 });
    expect(cudaCodeForDevice(prebuilt, "8.7")).toEqual({ kind: "sass", architecture: 86 });
    expect(cudaCodeForDevice(prebuilt, "12.0")).toEqual({ kind: "sass", architecture: 120 });
  });

  it("JIT-compiles the newest PTX not newer than the device when no machine code fits", () => {
    expect(cudaCodeForDevice(prebuilt, "9.0")).toEqual({ kind: "ptx-jit", architecture: 90 });
    expect(cudaCodeForDevice(prebuilt, "8.0")).toEqual({ kind: "ptx-jit", architecture: 80 });
    expect(cudaCodeForDevice(prebuilt, "10.0")).toEqual({ kind: "ptx-jit", architecture: 90 });
  });

  it("has nothing for a device older than every architecture", () => {
    expect(cudaCodeForDevice(prebuilt, "7.0")).toEqual({ kind: "none" });
    expect(cudaCodeForDevice({ sass: [90], ptx: [] }, "9.0")).toEqual({
      kind: "sass",
      architecture: 90,
    });
  });
});
