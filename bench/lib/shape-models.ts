// The models a decode benchmark runs: `--model file.gguf`, or the project's test models by shape
// (`--shapes tiny,0.5b`; the larger shapes in q8_0), each with how many tokens to time.
import type { TestModelShapeName } from "../../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import { ensureTestModel } from "../../test/support/test-model.ts";

export interface BenchModel {
  label: string;
  path: string;
  tokens: number;
}

export async function benchModels(options: {
  model?: string | undefined;
  shapes: string;
  tokens?: string | undefined;
}): Promise<BenchModel[]> {
  if (options.model !== undefined) {
    return [{ label: options.model, path: options.model, tokens: Number(options.tokens ?? 128) }];
  }
  return Promise.all(
    options.shapes.split(",").map(async (shape) => {
      const type = shape === "tiny" ? undefined : ("q8_0" as const);
      const path = await ensureTestModel({
        shape: shape as TestModelShapeName,
        ...(type === undefined ? {} : { type }),
      });
      const tokens = Number(options.tokens ?? (shape === "tiny" ? 256 : 64));
      return { label: `${shape}${type === undefined ? "" : ` ${type}`}`, path, tokens };
    }),
  );
}
