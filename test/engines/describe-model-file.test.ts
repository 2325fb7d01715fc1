// A GGUF named from its header: architecture, shape, quantization and size of the test models.
import { stat } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import {
  describeModelFile,
  formatModelFile,
} from "../../src/engines/llama-cpp/describe-model-file.ts";
import { ensureTestModel } from "../support/test-model.ts";

describe("describeModelFile", () => {
  it("reads architecture, layers, width and quantization from the header", async () => {
    const path = await ensureTestModel({ type: "f16" });
    const description = await describeModelFile(path);
    expect(description).toEqual({
      path,
      bytes: (await stat(path)).size,
      name: "Spark Test Model tiny",
      architecture: "qwen2",
      layers: 4,
      embeddingLength: 256,
      quantization: "F16",
    });
    expect(formatModelFile(description)).toMatch(
      new RegExp(`^qwen2, 4 layers × 256, F16, [\\d.]+ MiB: ${path.replaceAll(".", "\\.")}$`),
    );
  });

  it("names llama.cpp's file types without the MOSTLY_ prefix", async () => {
    const description = await describeModelFile(await ensureTestModel());
    expect(description.quantization).toBe("F32");
  });
});
