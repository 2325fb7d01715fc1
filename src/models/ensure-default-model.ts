// First use: returns the default model's path, pulling it (resumably, with progress) if missing.
import type { DownloadProgress } from "./download-progress.ts";
import { resolveDefaultModelPath } from "./default-local-model.ts";
import { pullModel } from "./pull-model.ts";

export interface EnsureDefaultModelOptions {
  sparkHome: string;
  env?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Called once, before downloading, so the caller can say what is about to happen. */
  onPullStart?: (details: { reference: string; url: string; path: string }) => void;
  onProgress?: (progress: DownloadProgress) => void;
}

export async function ensureDefaultModel(options: EnsureDefaultModelOptions): Promise<string> {
  const resolution = await resolveDefaultModelPath(options);
  if (resolution.status === "present") return resolution.path;
  options.onPullStart?.({
    reference: resolution.reference,
    url: resolution.url,
    path: resolution.path,
  });
  const result = await pullModel({
    url: resolution.url,
    destinationDirectory: resolution.destinationDirectory,
    fileName: resolution.fileName,
    signal: options.signal,
    onProgress: options.onProgress,
  });
  return result.path;
}
