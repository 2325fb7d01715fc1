import { copyFile, truncate } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { suiteDirectory } from "../../../../test/support/suite-directory.ts";
import { ensureTestModel } from "../../../../test/support/test-model.ts";
import { describeModelFile } from "../describe-model-file.ts";
import { describeTruncation, type TensorDataExtent } from "./tensor-data-extent.ts";

async function measureTensorData(path: string): Promise<TensorDataExtent> {
  const { tensorData } = await describeModelFile(path, { tensorData: true });
  if (tensorData === undefined) throw new Error("describeModelFile read no tensor table");
  return tensorData;
}

describe("tensor data extent", () => {
  const inDirectory = suiteDirectory("spark-extent-");

  it("a whole file's last tensor ends at its end (f32, f16 and q8_0 block sizes)", async () => {
    for (const type of ["f32", "f16", "q8_0"] as const) {
      const extent = await measureTensorData(await ensureTestModel({ type }));
      expect(extent.tensorCount).toBeGreaterThan(0);
      // At most the data alignment (32 bytes) of padding after the last tensor.
      expect(extent.fileBytes - extent.requiredBytes).toBeGreaterThanOrEqual(0);
      expect(extent.fileBytes - extent.requiredBytes).toBeLessThan(32);
      expect(describeTruncation(extent)).toBeUndefined();
    }
  });

  it("names a file cut short in its tensor data, and one cut right after its header's start", async () => {
    const cut = inDirectory("cut.gguf");
    await copyFile(await ensureTestModel({ type: "q8_0" }), cut);
    await truncate(cut, 1_000_000);
    expect(describeTruncation(await measureTensorData(cut))).toMatch(
      /cut short: its tensors need \d+ bytes but the file has 1000000/,
    );
    await truncate(cut, 8);
    expect(describeTruncation(await measureTensorData(cut))).toMatch(
      /lists no tensors \(8 bytes\)/,
    );
  });
});
