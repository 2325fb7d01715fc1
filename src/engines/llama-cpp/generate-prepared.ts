// A request the engine has rendered, given a grammar and a sequence, generated to its end: the
// tool_choice and context-room checks, prefill-only requests, prompt lookup and the usage it reports.
import type { ChatWrapper, LlamaGrammar, LlamaModel } from "node-llama-cpp";
import type { EngineEvent, EngineRequest, FinishReason, ToolDefinition, Usage } from "../engine.ts";
import type { StreamClock } from "../stream-clock.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { ChatFormatPrompt } from "./chat-format/chat-format-prompt.ts";
import type { EngineLease } from "./acquire-engine-lease.ts";
import type { RenderedPrompt } from "./completion-prompt.ts";
import { prefillPrompt } from "./generate-text.ts";
import type { GenerationResult } from "./generation-result.ts";
import { generateOnLease } from "./generate-on-lease.ts";
import type { GrammarCache } from "./grammar-cache.ts";
import { samplingPlace } from "./native-loop/device-sampling-mode.ts";
import type { LlamaCppEngineOptions } from "./llama-cpp-engine-options.ts";
import { configuredContextSize } from "./open-engine-parts.ts";
import type { RequestLookups } from "./prompt-lookup/request-lookup.ts";
import {
  preparePrefix,
  saveAfterJob,
  type EnginePrefixCache,
  type PreparedPrefix,
} from "./prefix-cache/prepare-prefix.ts";
import type { CachedSequence } from "./prefix-cache/cached-sequence.ts";
import { nodeLlamaCppCachedSequence } from "./prefix-cache/node-llama-cpp-cached-sequence.ts";
import { contextOverflowMessage } from "./request-tools.ts";
import type { ToolCallSyntax } from "./tool-calls/tool-call-syntax.ts";

/** What stream() settled before generate(): the request, its prompt, grammar and sequence. */
export interface PreparedGeneration {
  request: EngineRequest;
  tools: ToolDefinition[];
  prompt: RenderedPrompt;
  /** The request under the model's chat format, when it runs so. */
  chat: ChatFormatPrompt | undefined;
  /** Structured output's grammar, built before the sequence was taken. */
  grammar: LlamaGrammar | undefined;
  lease: EngineLease;
  clock: StreamClock;
  usage: Usage;
}

/** The engine's parts a generation reads. */
export interface GenerationEngineParts {
  model: LlamaModel;
  options: LlamaCppEngineOptions;
  trainContextSize: number;
  grammars: GrammarCache;
  lookups: RequestLookups;
  /** The model's tool-call syntax when the native loop runs tool turns. */
  toolSyntax: ToolCallSyntax | undefined;
  chatWrapper: ChatWrapper;
  /** The prefix cache on disk, when configured. */
  prefixCache: EnginePrefixCache | undefined;
}

/** Once the request holds its sequence: its work starts, on that sequence's loop and samplers. */
export function startClockOnLease(clock: StreamClock, lease: EngineLease): void {
  clock.markWorkStarted();
  clock.decodeLoop = lease.loop;
  if (lease.loop === "native") {
    const sequence = lease.lease.sequence;
    sequence.resetSamplers();
    clock.sampling = () => samplingPlace(sequence.samplersUsed());
  }
}

export async function* generatePrepared(
  engine: GenerationEngineParts,
  generation: PreparedGeneration,
  signal: AbortSignal | undefined,
  finish: (reason: FinishReason, error?: SparkError) => Generator<EngineEvent>,
): AsyncGenerator<EngineEvent> {
  const { request, tools, prompt, chat, grammar, lease, clock, usage } = generation;
  // Another tenant's tokens would be reused as a prefix, and show in cached tokens: clear them.
  if (lease.lease.foreignCache) {
    if (lease.loop === "native") lease.lease.sequence.forget();
    else await lease.lease.sequence.clearHistory();
  }
  const { contextSize } = lease.lease.sequence;
  const { model } = engine;
  const choice = request.toolChoice ?? "auto";
  if (typeof choice === "object" && tools.length === 0) {
    yield* finish(
      "error",
      new SparkError(
        "invalid_request",
        `tool_choice names "${choice.name}", which is not among the request's tools.`,
      ),
    );
    return;
  }
  const hasTools = tools.length > 0;
  const forceToolCall = hasTools && choice !== "auto";
  const promptTokens = prompt.tokens;
  // Only once the request holds a sequence: one cancelled while it waited evaluated nothing.
  usage.inputTokens = promptTokens.length;
  const room = contextSize - promptTokens.length;
  if (room <= 0) {
    yield* finish(
      "error",
      new SparkError(
        "context_length_exceeded",
        contextOverflowMessage(
          promptTokens.length,
          contextSize,
          configuredContextSize(engine.options),
          engine.trainContextSize,
        ),
      ),
    );
    return;
  }
  // The disk cache, and the lease's sequence as it sees it (either loop's).
  const disk =
    engine.prefixCache === undefined
      ? undefined
      : { cache: engine.prefixCache, sequence: cachedSequenceOf(lease) };
  const prefix: PreparedPrefix =
    disk === undefined
      ? { fromDisk: 0, computedAhead: 0 }
      : await preparePrefix(disk.cache, disk.sequence, request, promptTokens, signal);
  // After the job: the turn's state is copied before the lease goes and written in the background.
  const countCached = (reused: number): void => {
    usage.cachedInputTokens = Math.max(0, reused - prefix.computedAhead);
    if (prefix.fromDisk > 0) usage.diskCachedInputTokens = Math.min(prefix.fromDisk, reused);
    if (disk !== undefined && signal?.aborted !== true)
      saveAfterJob(disk.cache, disk.sequence, request, promptTokens.length - reused);
  };
  if (request.prefillOnly === true) {
    if (lease.loop === "native")
      countCached(await lease.lease.sequence.prefill(promptTokens, signal));
    else usage.cachedInputTokens = await prefillPrompt(lease.lease.sequence, promptTokens);
    yield* finish("stop");
    return;
  }
  const maxOutputTokens = Math.min(request.sampling?.maxOutputTokens ?? room, room);
  const sampling = request.sampling ?? {};
  const result: GenerationResult = {
    finishReason: "stop",
    outputTokens: 0,
    cachedInputTokens: 0,
  };
  // Text under a grammar decodes without prompt lookup; tool turns draft on the native loop only.
  const lookup =
    hasTools || grammar !== undefined ? undefined : engine.lookups.for(request, promptTokens);
  yield* generateOnLease(
    {
      lease,
      request,
      tools,
      limits: { model, promptTokens, sampling, maxOutputTokens, clock, signal },
      grammar,
      lookup,
      forceToolCall,
      grammars: engine.grammars,
      lookups: engine.lookups,
      toolSyntax: engine.toolSyntax,
      chat,
      chatWrapper: engine.chatWrapper,
      usage,
    },
    result,
  );
  if (lookup !== undefined) engine.lookups.report(lookup, promptTokens.length, usage);
  usage.outputTokens = result.outputTokens;
  countCached(result.cachedInputTokens);
  yield* finish(signal?.aborted ? "cancelled" : result.finishReason);
}

/** The lease's sequence as the prefix cache sees it, on either loop. */
function cachedSequenceOf(lease: EngineLease): CachedSequence {
  return lease.loop === "native"
    ? lease.lease.sequence
    : nodeLlamaCppCachedSequence(lease.lease.sequence);
}
