// The engine's prefix cache, when configured. On the native loop it starts as soon as the native
// context exists, so that the warm start's copy runs on the decode thread while the rest of the
// engine opens. On node-llama-cpp's loop it opens with the engine, without a warm start: a request's
// lookup loads its prefix through node-llama-cpp's state files (node-llama-cpp-cached-sequence.ts).
import type { EngineRequest } from "../../engine.ts";
import type { LlamaContext, Token } from "node-llama-cpp";
import type { LlamaCppEngineOptions } from "../llama-cpp-engine-options.ts";
import type { LoadedModel } from "../load-model.ts";
import type {
  EngineParts,
  NativeContextWork,
  NativeOpened,
  OpenEngineHooks,
} from "../open-engine-parts.ts";
import type { EnginePrefixCache } from "./prepare-prefix.ts";
import { PrefixCache, type PrefixCacheSettings } from "./prefix-cache.ts";
import { modelFileIdentity, type KvShape } from "./prefix-cache-key.ts";
import type { MapFile } from "../native-loop/generation-loop-addon.ts";
import { SystemPrefixTokens } from "./system-prefix.ts";

/**
 * How long the open waits at most, once everything else in it is done, for the warm start's load
 * to end (ms). It began before the chat format and wrapper opened and mostly ends meanwhile; a
 * state whose copy outlasts that by this much (a cold disk, gigabytes of GPU state) finishes behind
 * the open, and the first request waits for it as before (the pool holds others back a second).
 */
const WARM_START_OPEN_WAIT_MS = 1_000;

interface PrefixCacheStart extends NativeContextWork {
  /** The cache, once the warm start's copy is queued; undefined when it cannot open. */
  cache: Promise<PrefixCache | undefined>;
}

export interface PrefixCacheOpening {
  /** For openEngineParts: starts the cache as the native context exists. */
  hooks: OpenEngineHooks;
  /**
   * Once the engine is built: the cache it holds (see finishPrefixCache), or none. Without the
   * native loop, on the context node-llama-cpp's loop runs on.
   */
  finish(
    render: (request: EngineRequest) => readonly Token[],
    parts: Pick<EngineParts, "native" | "nodeLlamaCpp" | "loaded">,
  ): Promise<EnginePrefixCache | undefined>;
}

/**
 * The engine's prefix cache through its open. The model file's identity (its first MiB hashed,
 * ~10 ms) is read at once, while the backend and the model load; a file that cannot be read leaves
 * the engine without a cache.
 */
export function prefixCacheOpening(
  options: Pick<LlamaCppEngineOptions, "prefixCache" | "modelPath" | "signal">,
): PrefixCacheOpening {
  const settings = options.prefixCache;
  if (settings === undefined) return { hooks: {}, finish: () => Promise.resolve(undefined) };
  const identity = modelFileIdentity(options.modelPath).catch(() => undefined);
  let start: PrefixCacheStart | undefined;
  return {
    hooks: {
      modelIdentity: identity,
      nativeOpened: (opened) =>
        (start = startPrefixCache(settings, opened, identity, options.signal)),
    },
    finish: (render, { native, nodeLlamaCpp, loaded }) => {
      if (start === undefined && native === undefined && nodeLlamaCpp !== undefined)
        start = startWithoutWarmStart(
          settings,
          { loaded, context: nodeLlamaCpp.context },
          identity,
        );
      return finishPrefixCache(start, render);
    },
  };
}

/** The cache for node-llama-cpp's loop: keyed by its context's settings, nothing loaded at open. */
function startWithoutWarmStart(
  settings: PrefixCacheSettings,
  { loaded, context }: { loaded: LoadedModel; context: LlamaContext },
  identity: Promise<string | undefined>,
): PrefixCacheStart {
  const shape = {
    ...backendShape(loaded.llama),
    gpuLayers: loaded.model.gpuLayers,
    flashAttention: String(context.flashAttention),
    sequences: context.totalSequences,
    decodeLoop: "node-llama-cpp" as const,
  };
  const cache = openCache(settings, identity, shape);
  return { cache, queued: cache, ended: cache };
}

/**
 * As the native context opens: the folder is listed and what the last process left off with is
 * mapped and its copy queued on the decode thread (`queued`), so it runs while the engine's open
 * opens the chat format and wrapper; `ended` once that load ended. Never rejects.
 */
function startPrefixCache(
  settings: PrefixCacheSettings,
  opened: NativeOpened,
  identity: Promise<string | undefined>,
  signal?: AbortSignal,
): PrefixCacheStart {
  const { native } = opened;
  // Read now: when node-llama-cpp needs the weights after all, this vocabulary-only model goes.
  const shape = {
    ...backendShape(opened.loaded.llama),
    gpuLayers: opened.gpuLayers,
    flashAttention: String(opened.loaded.model.defaultContextFlashAttention),
    sequences: native.options.sequences,
  };
  const cache = openCache(settings, identity, shape, native.mapFile, async (prefixCache) => {
    // An open given up meanwhile: nothing is loaded into a context about to be freed.
    if (signal?.aborted !== true)
      await prefixCache.loadWhereLastLeftOff(native.pool, undefined).copying;
  });
  return { cache, queued: cache, ended: cache.then((opened) => opened?.warmStartEnded()) };
}

/** What either loop's KV state shares: llama.cpp's release, and llama.cpp's f16 KV cache. */
function backendShape(llama: LoadedModel["llama"]): Pick<KvShape, "llamaCppRelease" | "kvType"> {
  return {
    llamaCppRelease: `${llama.llamaCppRelease.repo}@${llama.llamaCppRelease.release}`,
    kvType: "f16",
  };
}

/**
 * The cache once the model's identity is read and the folder listed (then `warmStart`); undefined
 * when the identity cannot be read. Never rejects.
 */
function openCache(
  settings: PrefixCacheSettings,
  identity: Promise<string | undefined>,
  shape: Omit<KvShape, "modelIdentity">,
  mapFile?: MapFile,
  warmStart?: (cache: PrefixCache) => Promise<void>,
): Promise<PrefixCache | undefined> {
  return (async (): Promise<PrefixCache | undefined> => {
    const modelIdentity = await identity;
    if (modelIdentity === undefined) return undefined;
    const prefixCache = new PrefixCache(settings, { modelIdentity, ...shape }, mapFile);
    await prefixCache.prefetch(undefined);
    await warmStart?.(prefixCache);
    return prefixCache;
  })().catch(() => undefined);
}

/**
 * The cache as the engine holds it, once the warm start's load ended (or WARM_START_OPEN_WAIT_MS
 * passed): the first request then finds its state in memory, checked, instead of waiting for the
 * copy and its checksum behind its own prompt's rendering.
 */
async function finishPrefixCache(
  start: PrefixCacheStart | undefined,
  render: (request: EngineRequest) => readonly Token[],
): Promise<EnginePrefixCache | undefined> {
  const cache = await start?.cache;
  if (start === undefined || cache === undefined) return undefined;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    start.ended,
    new Promise<void>((resolve) => (timer = setTimeout(resolve, WARM_START_OPEN_WAIT_MS))),
  ]);
  clearTimeout(timer);
  return { cache, systemPrefix: new SystemPrefixTokens(render) };
}
