// The models a decode benchmark runs: `--model file.gguf`, or the project's test models by shape
// (`--shapes tiny,0.5b`; the larger shapes in q8_0), each with how many tokens to time.
import type { TestModelShapeName } from "../../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import { ensureTestModel } from "../../test/support/test-model.ts";

/** parseArgs options every decode bench takes: which models, how many tokens, threads, rounds. */
export function decodeBenchOptions(defaults: { shapes: string; threads: string }) {
  return {
    model: { type: "string" },
    shapes: { type: "string", default: defaults.shapes },
    tokens: { type: "string" },
    threads: { type: "string", default: defaults.threads },
    rounds: { type: "string", default: "3" },
  } as const;
}

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
