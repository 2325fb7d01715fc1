// The bench command line and the GGUF context-length patch the session scenario relies on.
import { describe, expect, it } from "vitest";
import { patchContextLength } from "../../bench/lib/long-context-test-model.ts";
import { parseBenchArgs } from "../../bench/lib/parse-bench-args.ts";

describe("parseBenchArgs", () => {
  it("defaults to every scenario at full size on one thread", () => {
    expect(parseBenchArgs([])).toMatchObject({
      size: "full",
      gpu: false,
      scenarios: undefined,
      threads: 1,
      modelPath: undefined,
    });
  });

  it("takes repeated and comma-separated scenarios, --quick, --model and --threads", () => {
    const args = parseBenchArgs([
      "--quick",
      "--scenario",
      "1,3",
      "--scenario",
      "5",
      "--model",
      "m.gguf",
      "--threads",
      "2",
    ]);
    expect(args).toMatchObject({
      size: "quick",
      scenarios: [1, 3, 5],
      modelPath: "m.gguf",
      threads: 2,
    });
  });

  it("refuses unknown scenarios, bad thread counts and unknown flags", () => {
    expect(() => parseBenchArgs(["--scenario", "10"])).toThrow(/1 to 9/);
    expect(() => parseBenchArgs(["--threads", "0"])).toThrow(/positive integer/);
    expect(() => parseBenchArgs(["--fast"])).toThrow(/usage/);
  });
});

describe("patchContextLength", () => {
  function header(architecture: string, type = 4): Buffer {
    const key = Buffer.from(`${architecture}.context_length`);
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(key.length));
    const value = Buffer.alloc(8);
    value.writeUInt32LE(type, 0);
    value.writeUInt32LE(4096, 4);
    return Buffer.concat([
      Buffer.from("GGUF"),
      Buffer.alloc(20),
      length,
      key,
      value,
      Buffer.alloc(16),
    ]);
  }

  it("rewrites the uint32 value in place, leaving the size unchanged", () => {
    const bytes = header("qwen2");
    const size = bytes.length;
    patchContextLength(bytes, 40_960);
    expect(bytes.length).toBe(size);
    expect(bytes.readUInt32LE(bytes.indexOf("qwen2.context_length") + 20 + 4)).toBe(40_960);
  });

  it("refuses a file without the key or with another value type", () => {
    expect(() => patchContextLength(Buffer.from("GGUF nothing here"), 8192)).toThrow(
      /context_length/,
    );
    expect(() => patchContextLength(header("llama", 6), 8192)).toThrow(/uint32/);
  });
});
