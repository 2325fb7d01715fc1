// Round-trips a small GGUF through node-llama-cpp's own reader (the real consumer) and checks the
// tensor bytes land at the aligned offsets it reports.

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GgmlType, readGgufFileInfo } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  measureGgufFile,
  writeGgufFile,
  type GgufMetadataValue,
  type GgufTensor,
} from "./gguf-writer.ts";
import { float16BitsToFloat32 } from "./tensor-encoding.ts";

function counting(name: string, dimensions: number[], type: GgufTensor["type"]): GgufTensor {
  // Value = its flat index / 64, so every byte position is checkable.
  return {
    name,
    dimensions,
    type,
    fillRows: (firstRow, _rowCount, target) => {
      const rowLength = dimensions[0] ?? 1;
      for (let index = 0; index < target.length; index++) {
        target[index] = (firstRow * rowLength + index) / 64;
      }
    },
  };
}

describe("writeGgufFile", () => {
  let directory: string;
  let path: string;
  const metadata = new Map<string, GgufMetadataValue>([
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: "héllo wörld" }],
    ["test.unsigned", { type: "uint32", value: 4_000_000_000 }],
    ["test.signed", { type: "int32", value: -7 }],
    ["test.float", { type: "float32", value: 0.5 }],
    ["test.flag", { type: "bool", value: true }],
    ["test.strings", { type: "string[]", value: ["a", "", "<|im_end|>"] }],
    ["test.floats", { type: "float32[]", value: [1.5, -2] }],
    ["test.ints", { type: "int32[]", value: [3, -4, 5] }],
  ]);
  const tensors = [
    counting("a.f32", [3], "f32"), // 12 bytes: forces padding before the next tensor
    counting("b.f16", [8, 3], "f16"),
    counting("c.q8_0", [32, 2], "q8_0"),
  ];

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "spark-gguf-"));
    path = join(directory, "round-trip.gguf");
    const result = await writeGgufFile(path, { metadata, tensors });
    expect(result.parameterCount).toBe(3 + 24 + 64);
    expect(result.byteLength).toBe((await readFile(path)).length);
    expect(measureGgufFile({ metadata, tensors })).toEqual(result);
  });

  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it("writes metadata every type of which node-llama-cpp reads back", async () => {
    const info = await readGgufFileInfo(path, { logWarnings: false });
    expect(info.version).toBe(3);
    expect(info.metadata.general.architecture).toBe("llama");
    expect(info.metadata.general.name).toBe("héllo wörld");
    expect(info.metadata.general.alignment).toBe(32);
    const custom = (info.metadata as unknown as { test: Record<string, unknown> }).test;
    expect(custom).toEqual({
      unsigned: 4_000_000_000,
      signed: -7,
      float: 0.5,
      flag: true,
      strings: ["a", "", "<|im_end|>"],
      floats: [1.5, -2],
      ints: [3, -4, 5],
    });
  });

  it("writes tensor infos with innermost-first dimensions and aligned offsets", async () => {
    const info = await readGgufFileInfo(path, { logWarnings: false });
    const infos = info.tensorInfo ?? [];
    expect(
      infos.map((tensor) => [tensor.name, tensor.dimensions.map(Number), tensor.ggmlType]),
    ).toEqual([
      ["a.f32", [3], GgmlType.F32],
      ["b.f16", [8, 3], GgmlType.F16],
      ["c.q8_0", [32, 2], GgmlType.Q8_0],
    ]);
    expect(infos.map((tensor) => Number(tensor.offset))).toEqual([0, 32, 96]);
    expect((info.infoEndOffset ?? 1) % 32).toBe(0);
  });

  it("places each tensor's bytes at its reported file offset", async () => {
    const info = await readGgufFileInfo(path, { logWarnings: false });
    const bytes = await readFile(path);
    const [f32, f16, q8] = (info.tensorInfo ?? []).map((tensor) => Number(tensor.fileOffset));
    expect(bytes.readFloatLE((f32 ?? 0) + 8)).toBe(2 / 64);
    expect(float16BitsToFloat32(bytes.readUInt16LE((f16 ?? 0) + 2 * 23))).toBe(23 / 64);
    // Second Q8_0 block holds 32..63 / 64, so its largest value 63/64 quantises to 127.
    expect(bytes.readInt8((q8 ?? 0) + 34 + 2 + 31)).toBe(127);
    expect(bytes.length).toBe((q8 ?? 0) + 68 + 28); // padded to the alignment at the end
  });

  it("writes headers larger than the builder's first buffer (big vocabularies)", async () => {
    const words = Array.from({ length: 8_000 }, (_, index) => `token-${index}`);
    const bigPath = join(directory, "big-header.gguf");
    await writeGgufFile(bigPath, {
      metadata: new Map([["test.words", { type: "string[]", value: words }]]),
      tensors: [counting("a", [32], "f32")],
    });
    const info = await readGgufFileInfo(bigPath, { logWarnings: false });
    const custom = (info.metadata as unknown as { test: { words: string[] } }).test;
    expect(custom.words).toEqual(words);
    expect(info.tensorInfo?.[0]?.name).toBe("a");
  });

  it("rejects Q8_0 rows that are not whole blocks", async () => {
    await expect(
      writeGgufFile(join(directory, "bad.gguf"), {
        metadata,
        tensors: [counting("bad", [16, 2], "q8_0")],
      }),
    ).rejects.toThrow(/multiple of 32/);
  });
});
