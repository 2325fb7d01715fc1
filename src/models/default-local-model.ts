// The model Spark runs when nothing is configured: a small instruction-tuned coder GGUF, found in
// ~/.spark/models or reported missing so the caller can pull it on first use.
import { stat } from "node:fs/promises";
import path from "node:path";
import { modelsDirectory } from "./models-directory.ts";
import { parseModelReference } from "./parse-model-reference.ts";

export const DEFAULT_LOCAL_MODEL = {
  reference: "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M",
  fileName: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
} as const;

export type DefaultModelResolution =
  | { status: "present"; path: string; sizeBytes: number }
  | {
      status: "missing";
      /** Where the file will be once pulled. */
      path: string;
      destinationDirectory: string;
      fileName: string;
      reference: string;
      /** Download URL (honours SPARK_HF_ENDPOINT). */
      url: string;
    };

export interface ResolveDefaultModelOptions {
  sparkHome: string;
  env?: Record<string, string | undefined>;
}

export async function resolveDefaultModelPath(
  options: ResolveDefaultModelOptions,
): Promise<DefaultModelResolution> {
  const destinationDirectory = modelsDirectory(options.sparkHome);
  const filePath = path.join(destinationDirectory, DEFAULT_LOCAL_MODEL.fileName);
  try {
    const stats = await stat(filePath);
    if (stats.isFile()) return { status: "present", path: filePath, sizeBytes: stats.size };
  } catch {
    // Not there yet: fall through to "missing".
  }
  const reference = parseModelReference(DEFAULT_LOCAL_MODEL.reference, options.env ?? process.env);
  return {
    status: "missing",
    path: filePath,
    destinationDirectory,
    fileName: DEFAULT_LOCAL_MODEL.fileName,
    reference: DEFAULT_LOCAL_MODEL.reference,
    url: reference.url,
  };
}
