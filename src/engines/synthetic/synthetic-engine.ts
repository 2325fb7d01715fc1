// An Engine with no compute: deterministic tokens at a set rate. Benchmarks use it to see the
// gateway's own cost; tests use it to drive every path (stop, abort, cache reuse, failures).
import { setImmediate as yieldToEventLoop, setTimeout as sleep } from "node:timers/promises";
import type {
  ChatMessage,
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
  FinishReason,
  ModelInfo,
} from "../engine.ts";
import { cacheAffinityKey } from "../cache-affinity-key.ts";
import { endStream, noUsage } from "../end-stream.ts";
import { StreamClock } from "../stream-clock.ts";
import { refuseOutputFormat, rejectStreamRequest } from "../validate-request.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { SyntheticPrefixCache } from "./synthetic-prefix-cache.ts";
import {
  estimateMessageTokens,
  hashText,
  splitIntoTokens,
  syntheticToken,
} from "./synthetic-tokens.ts";
import { StopMatcher } from "../stop-matcher.ts";
import { TokenPacer } from "./token-pacer.ts";

export interface SyntheticEngineOptions {
  /** Output rate; Infinity (the default) emits as fast as the event loop allows. */
  tokensPerSecond?: number;
  /** Tokens in a full answer when the request sets no lower maximum (default 64). */
  tokens?: number;
  /** A fixed answer, split into word tokens and repeated; default: words picked by the prompt. */
  text?: string;
  /** End the stream with an error after this many output tokens (fault tests). */
  failAfterTokens?: number;
  /** Simulated prompt evaluation before the first token. */
  prefillMs?: number;
  /** Extra prefill time per input token not served from the session's cache. */
  prefillMsPerUncachedToken?: number;
  /** Answer a request that offers this tool with one call to it (unless it follows a tool result). */
  toolCall?: { name: string; arguments: string };
  model?: string;
  contextLength?: number;
}

export interface SyntheticEngine extends Engine {
  /** Streams started and not yet ended: tests use it to see that an aborted stream freed the engine. */
  readonly activeStreams: number;
  /** The most recent requests, newest last (at most 100). */
  readonly requests: readonly EngineRequest[];
}

const DEFAULT_MODEL = "synthetic";
const YIELD_EVERY_TOKENS = 32;

export function createSyntheticEngine(options: SyntheticEngineOptions = {}): SyntheticEngine {
  const fixedTokens = options.text === undefined ? undefined : splitIntoTokens(options.text);
  const cache = new SyntheticPrefixCache();
  const pacer = new TokenPacer();
  const requests: EngineRequest[] = [];
  let activeStreams = 0;
  let disposed = false;

  async function* stream(
    request: EngineRequest,
    streamOptions: EngineStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    const clock = new StreamClock();
    const signal = streamOptions.signal;
    requests.push(request);
    if (requests.length > 100) requests.shift();
    const rejection = rejectStreamRequest("synthetic", disposed, request);
    if (rejection !== undefined) {
      yield* endStream(clock, noUsage(), "error", rejection);
      return;
    }
    activeStreams += 1;
    try {
      clock.markWorkStarted();
      const cacheLookup = {
        key: cacheAffinityKey(request),
        scope: request.cacheScope,
        messages: request.messages,
      };
      const inputTokens = request.messages.reduce(
        (sum, message) => sum + estimateMessageTokens(message),
        0,
      );
      const cachedInputTokens = Math.max(
        0,
        Math.min(cache.cachedTokens(cacheLookup), inputTokens - 1),
      );
      const prefillMs =
        (options.prefillMs ?? 0) +
        (options.prefillMsPerUncachedToken ?? 0) * (inputTokens - cachedInputTokens);
      if (prefillMs > 0) await sleep(prefillMs, undefined, { signal }).catch(() => undefined);

      const generation = new SyntheticGeneration(request, options, fixedTokens, clock, pacer);
      let reason: FinishReason;
      let error: SparkError | undefined;
      if (signal?.aborted === true) reason = "cancelled";
      else {
        const outcome = yield* generation.run(signal);
        reason = outcome.reason;
        error = outcome.error;
      }
      if (reason !== "error") cache.remember(cacheLookup, generation.reply());
      const usage = { inputTokens, cachedInputTokens, outputTokens: generation.outputTokens };
      yield* endStream(clock, usage, reason, error);
    } finally {
      activeStreams -= 1;
    }
  }

  const engine: SyntheticEngine = {
    kind: "synthetic",
    get activeStreams() {
      return activeStreams;
    },
    get requests() {
      return requests;
    },
    stream,
    // Its words are picked, not sampled: no format can be imposed, so one is refused up front.
    checkRequest: async (request) => refuseOutputFormat("synthetic", request),
    async listModels(): Promise<ModelInfo[]> {
      const model: ModelInfo = { id: options.model ?? DEFAULT_MODEL, engine: "synthetic" };
      if (options.contextLength !== undefined) model.contextLength = options.contextLength;
      return [model];
    },
    async dispose(): Promise<void> {
      disposed = true;
    },
    async [Symbol.asyncDispose](): Promise<void> {
      disposed = true;
    },
  };
  return engine;
}

/** One answer being produced: text (with stop sequences held back until they cannot match) or
 * one tool call, paced at the configured rate. */
class SyntheticGeneration {
  outputTokens = 0;
  private text = "";
  private toolCall: { id: string; name: string; arguments: string } | undefined;
  private readonly promptHash: number;
  private readonly maxTokens: number;
  private readonly naturalTokens: number;
  private readonly intervalMs: number;
  private readonly startedAt = performance.now();

  constructor(
    private readonly request: EngineRequest,
    private readonly options: SyntheticEngineOptions,
    private readonly fixedTokens: string[] | undefined,
    private readonly clock: StreamClock,
    private readonly pacer: TokenPacer,
  ) {
    const lastMessage = request.messages.at(-1);
    this.promptHash = hashText(lastMessage?.content ?? "");
    this.naturalTokens = options.tokens ?? 64;
    this.maxTokens = request.sampling?.maxOutputTokens ?? Number.POSITIVE_INFINITY;
    const rate = options.tokensPerSecond ?? Number.POSITIVE_INFINITY;
    this.intervalMs = rate > 0 && Number.isFinite(rate) ? 1000 / rate : 0;
  }

  reply(): ChatMessage {
    if (this.toolCall !== undefined)
      return { role: "assistant", content: this.text, toolCalls: [this.toolCall] };
    return { role: "assistant", content: this.text };
  }

  async *run(
    signal: AbortSignal | undefined,
  ): AsyncGenerator<EngineEvent, { reason: FinishReason; error?: SparkError }> {
    const toolCall = this.options.toolCall;
    const offersTool = this.request.tools?.some((tool) => tool.name === toolCall?.name) === true;
    if (toolCall !== undefined && offersTool && this.request.messages.at(-1)?.role !== "tool") {
      return yield* this.runToolCall(toolCall, signal);
    }
    const stopMatcher = new StopMatcher(this.request.sampling?.stop ?? []);
    const limit = Math.min(this.naturalTokens, this.maxTokens);
    while (this.outputTokens < limit) {
      if (!(await this.pace(signal))) {
        const rest = stopMatcher.flush();
        if (rest !== "") yield this.textDelta(rest);
        return { reason: "cancelled" };
      }
      const failure = this.failure();
      if (failure !== undefined) return { reason: "error", error: failure };
      const token = syntheticToken(this.outputTokens, this.promptHash, this.fixedTokens);
      this.outputTokens += 1;
      this.clock.markToken();
      const { emit, stopped } = stopMatcher.push(token);
      if (emit !== "") yield this.textDelta(emit);
      if (stopped) return { reason: "stop" };
    }
    const rest = stopMatcher.flush();
    if (rest !== "") yield this.textDelta(rest);
    return {
      reason:
        this.outputTokens >= this.maxTokens && this.maxTokens < this.naturalTokens
          ? "length"
          : "stop",
    };
  }

  private async *runToolCall(
    toolCall: { name: string; arguments: string },
    signal: AbortSignal | undefined,
  ): AsyncGenerator<EngineEvent, { reason: FinishReason; error?: SparkError }> {
    const id = `call_${hashText(`${toolCall.name}:${this.request.messages.length}`).toString(16)}`;
    this.toolCall = { id, name: toolCall.name, arguments: "" };
    yield { type: "tool-call-start", id, name: toolCall.name };
    const pieces = toolCall.arguments.match(/[\s\S]{1,8}/g) ?? [];
    for (const piece of pieces) {
      if (!(await this.pace(signal))) return { reason: "cancelled" };
      const failure = this.failure();
      if (failure !== undefined) return { reason: "error", error: failure };
      this.outputTokens += 1;
      this.clock.markToken();
      this.toolCall.arguments += piece;
      yield { type: "tool-call-delta", id, argumentsDelta: piece };
    }
    yield { type: "tool-call-end", id, name: toolCall.name, arguments: this.toolCall.arguments };
    return { reason: "tool_calls" };
  }

  private textDelta(text: string): EngineEvent {
    this.text += text;
    return { type: "text-delta", text };
  }

  private failure(): SparkError | undefined {
    const failAfter = this.options.failAfterTokens;
    if (failAfter === undefined || this.outputTokens < failAfter) return undefined;
    return new SparkError(
      "upstream_error",
      `The synthetic engine failed on purpose after ${failAfter} tokens (failAfterTokens).`,
    );
  }

  /** Waits until the next token is due; false when the signal aborted meanwhile. */
  private async pace(signal: AbortSignal | undefined): Promise<boolean> {
    if (isAborted(signal)) return false;
    const dueAt = this.startedAt + this.outputTokens * this.intervalMs;
    const delay = dueAt - performance.now();
    if (delay >= 1) await this.pacer.wait(dueAt, signal);
    else if (this.outputTokens % YIELD_EVERY_TOKENS === 0) await yieldToEventLoop();
    return !isAborted(signal);
  }
}

// A function, not an inline check, so the compiler does not assume `aborted` is unchanged by an await.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
