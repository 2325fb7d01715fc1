// The engine's prefix cache, when configured and the native loop holds the KV cache (node-llama-cpp's
// sequences keep theirs in node-llama-cpp's own context, which the native loop's state API cannot
// reach; that loop serves without a disk cache).
import type { EngineRequest } from "../../engine.ts";
import type { Token } from "node-llama-cpp";
import type { LlamaCppEngineOptions } from "../llama-cpp-engine-options.ts";
import type { EngineParts } from "../open-engine-parts.ts";
import type { EnginePrefixCache } from "./prepare-prefix.ts";
import { PrefixCache } from "./prefix-cache.ts";
import { modelFileIdentity } from "./prefix-cache-key.ts";
import { SystemPrefixTokens } from "./system-prefix.ts";

/** Never throws: a cache that cannot open (the model file unreadable) leaves the engine without. */
export async function openPrefixCache(
  options: Pick<LlamaCppEngineOptions, "prefixCache" | "modelPath">,
  parts: EngineParts,
  render: (request: EngineRequest) => readonly Token[],
): Promise<EnginePrefixCache | undefined> {
  const settings = options.prefixCache;
  if (settings === undefined || parts.native === undefined) return undefined;
  const { llama, model } = parts.loaded;
  let modelIdentity: string;
  try {
    modelIdentity = await modelFileIdentity(options.modelPath);
  } catch {
    return undefined;
  }
  const cache = new PrefixCache(
    settings,
    {
      modelIdentity,
      llamaCppRelease: `${llama.llamaCppRelease.repo}@${llama.llamaCppRelease.release}`,
      gpuLayers: parts.gpuLayers,
      flashAttention: String(model.defaultContextFlashAttention),
      sequences: parts.native.options.sequences,
      kvType: "f16",
    },
    parts.native.mapFile,
  );
  // As the engine opens (a few ms here), the folder is listed and what the last process left off
  // with is mapped, its copy into a sequence queued on the decode thread: the first request's
  // prompt renders meanwhile, where each of these steps stalled behind it (see warm-start.ts).
  await cache.prefetch(undefined);
  await cache.loadWhereLastLeftOff(parts.native.pool, undefined).copying;
  return { cache, systemPrefix: new SystemPrefixTokens(render) };
}
