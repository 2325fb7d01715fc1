// First use with nothing configured: pull the default instruction-tuned coder GGUF with a progress
// bar, then run it on the embedded engine.
import type { LoadedConfig, ModelConfig } from "../config/config-types.ts";
import { ensureDefaultModel } from "../models/ensure-default-model.ts";
import { createProgressWriter, type ProgressStream } from "../models/progress-writer.ts";

export async function defaultModelFallback(
  config: LoadedConfig,
  output: ProgressStream,
): Promise<ModelConfig> {
  let writer: ReturnType<typeof createProgressWriter> | undefined;
  const path = await ensureDefaultModel({
    sparkHome: config.sparkHome,
    env: process.env,
    onPullStart: ({ reference, path: destination }) => {
      output.write(
        `No model configured; downloading the default model ${reference}\n  to ${destination}\n`,
      );
      writer = createProgressWriter(output, { label: "pull" });
    },
    onProgress: (progress) => writer?.update(progress),
  });
  writer?.finish();
  return {
    engine: "llama-cpp",
    path,
    gpu: "auto",
    sequences: 4,
    speculative: false,
  };
}
