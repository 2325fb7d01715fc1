// An Engine that replays a model transcript from a JSONL file: each stream() call plays the next
// line (text as word deltas, then tool calls). The one stand-in for a model in agent tests.
import { setTimeout as sleep } from "node:timers/promises";
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
  FinishReason,
  ModelInfo,
} from "../engine.ts";
import { endStream, noUsage } from "../end-stream.ts";
import { StreamClock } from "../stream-clock.ts";
import { rejectStreamRequest } from "../validate-request.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { StopMatcher } from "../stop-matcher.ts";
import { checkExpectation } from "./check-expectation.ts";
import { estimateScriptInputTokens } from "./estimate-script-input-tokens.ts";
import { loadScript, parseScript, type ScriptTurn, type ScriptTurnInput } from "./script-turn.ts";

export type ScriptEngineOptions =
  { path: string; model?: string } | { turns: ScriptTurnInput[]; model?: string };

export interface ScriptEngine extends Engine {
  /** Lines played so far. */
  readonly turnsPlayed: number;
  readonly turnsTotal: number;
  /** Every request received, in order (tests inspect what the agent sent). */
  readonly requests: readonly EngineRequest[];
}

const ARGUMENT_CHUNK_CHARS = 16;

export async function createScriptEngine(options: ScriptEngineOptions): Promise<ScriptEngine> {
  const turns =
    "path" in options
      ? await loadScript(options.path)
      : parseScript(options.turns.map((turn) => JSON.stringify(turn)).join("\n"), "turns");
  const source = "path" in options ? options.path : "the script";
  const requests: EngineRequest[] = [];
  let next = 0;
  let disposed = false;

  async function* stream(
    request: EngineRequest,
    streamOptions: EngineStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    const clock = new StreamClock();
    // Everything up to taking the line is synchronous, so concurrent callers get lines in call order.
    // A completion (FIM) request replays its line as the completion text; a structured-output
    // request replays it as the answer (the script holds the JSON a model would have written).
    let rejection = rejectStreamRequest("script", disposed, request, {
      completions: true,
      outputFormat: true,
      continuation: true,
    });
    if (rejection === undefined && request.prefillOnly === true) {
      // A warm-up (`generate: false`) has nothing to prefill here; it must not use up a line.
      requests.push(request);
      yield* endStream(clock, noUsage(estimateScriptInputTokens(request)), "stop");
      return;
    }
    let turn: ScriptTurn | undefined;
    const lineNumber = next + 1;
    if (rejection === undefined) {
      requests.push(request);
      turn = turns[next];
      if (turn === undefined) {
        rejection = new SparkError(
          "invalid_request",
          `The script ${source} has no turn left: all ${turns.length} were played.`,
        );
      } else {
        next += 1;
        rejection = checkExpectation(turn.expect, request, lineNumber);
      }
    }
    const inputTokens = estimateScriptInputTokens(request);
    if (rejection !== undefined || turn === undefined) {
      yield* endStream(clock, noUsage(inputTokens), "error", rejection);
      return;
    }
    clock.markWorkStarted();
    const playback = new TurnPlayback(turn, request, clock, lineNumber, streamOptions.signal);
    const outcome = yield* playback.run();
    const usage = { inputTokens, cachedInputTokens: 0, outputTokens: playback.outputTokens };
    yield* endStream(clock, usage, outcome.reason, outcome.error);
  }

  return {
    kind: "script",
    get turnsPlayed() {
      return next;
    },
    get turnsTotal() {
      return turns.length;
    },
    get requests() {
      return requests;
    },
    stream,
    async listModels(): Promise<ModelInfo[]> {
      return [{ id: options.model ?? "script", engine: "script" }];
    },
    async dispose(): Promise<void> {
      disposed = true;
    },
    async [Symbol.asyncDispose](): Promise<void> {
      disposed = true;
    },
  };
}

interface Outcome {
  reason: FinishReason;
  error?: SparkError;
}

/** One line being played: max tokens and stop sequences apply to the text, one delta a token. */
class TurnPlayback {
  outputTokens = 0;
  private readonly maxTokens: number;

  constructor(
    private readonly turn: ScriptTurn,
    private readonly request: EngineRequest,
    private readonly clock: StreamClock,
    private readonly lineNumber: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.maxTokens = request.sampling?.maxOutputTokens ?? Number.POSITIVE_INFINITY;
  }

  async *run(): AsyncGenerator<EngineEvent, Outcome> {
    // A continuation resumes the answer; the reasoning before it was already sent.
    const reasoning = this.request.continueFinalMessage === true ? "" : this.turn.reasoning;
    for (const word of splitIntoWords(reasoning)) {
      if (this.outputTokens >= this.maxTokens) return { reason: "length" };
      if (!(await this.pace())) return { reason: "cancelled" };
      this.count();
      yield { type: "reasoning-delta", text: word };
    }
    const stopMatcher = new StopMatcher(this.request.sampling?.stop ?? []);
    for (const word of splitIntoWords(continuedText(this.turn.text, this.request))) {
      if (this.outputTokens >= this.maxTokens) {
        const rest = stopMatcher.flush();
        if (rest !== "") yield { type: "text-delta", text: rest };
        return { reason: "length" };
      }
      if (!(await this.pace())) {
        const rest = stopMatcher.flush();
        if (rest !== "") yield { type: "text-delta", text: rest };
        return { reason: "cancelled" };
      }
      this.count();
      const { emit, stopped } = stopMatcher.push(word);
      if (emit !== "") yield { type: "text-delta", text: emit };
      if (stopped) return { reason: "stop" };
    }
    const rest = stopMatcher.flush();
    if (rest !== "") yield { type: "text-delta", text: rest };
    if (this.turn.error !== undefined) {
      return {
        reason: "error",
        error: new SparkError(this.turn.error.code, this.turn.error.message),
      };
    }
    return yield* this.playToolCalls();
  }

  private async *playToolCalls(): AsyncGenerator<EngineEvent, Outcome> {
    const calls = this.turn.toolCalls;
    for (const [index, call] of calls.entries()) {
      const id = call.id ?? `call_${this.lineNumber}_${index + 1}`;
      const argumentsText =
        typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      if (!(await this.pace())) return { reason: "cancelled" };
      yield { type: "tool-call-start", id, name: call.name };
      for (let offset = 0; offset < argumentsText.length; offset += ARGUMENT_CHUNK_CHARS) {
        if (offset > 0 && !(await this.pace())) return { reason: "cancelled" };
        this.count();
        yield {
          type: "tool-call-delta",
          id,
          argumentsDelta: argumentsText.slice(offset, offset + ARGUMENT_CHUNK_CHARS),
        };
      }
      yield { type: "tool-call-end", id, name: call.name, arguments: argumentsText };
    }
    return { reason: calls.length > 0 ? "tool_calls" : "stop" };
  }

  private count(): void {
    this.outputTokens += 1;
    this.clock.markToken();
  }

  /** Waits the line's delay; false when the signal aborted (before or during the wait). */
  private async pace(): Promise<boolean> {
    if (isAborted(this.signal)) return false;
    if (this.turn.delayMs > 0) {
      await sleep(this.turn.delayMs, undefined, { signal: this.signal }).catch(() => undefined);
    }
    return !isAborted(this.signal);
  }
}

/** A continuation plays what the line has after the partial answer the request ends with. */
function continuedText(text: string, request: EngineRequest): string {
  if (request.continueFinalMessage !== true) return text;
  const last = request.messages.at(-1);
  const partial = last?.role === "assistant" ? last.content : "";
  return text.startsWith(partial) ? text.slice(partial.length) : text;
}

/** "Hello big world." → ["Hello", " big", " world."]: each delta carries its leading space. */
export function splitIntoWords(text: string): string[] {
  return text.match(/\s*\S+\s*$|\s*\S+/g) ?? (text === "" ? [] : [text]);
}

// A function, so the compiler does not assume `aborted` is unchanged across an await.
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}
