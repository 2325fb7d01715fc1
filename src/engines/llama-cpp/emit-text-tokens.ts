// Turns a stream of sampled tokens into text deltas: stop strings, the output token limit and the
// abort, the same for node-llama-cpp's loop and the native one.
import type { LlamaModel, Token } from "node-llama-cpp";
import type { EngineEvent, SamplingOptions } from "../engine.ts";
import type { StreamClock } from "../stream-clock.ts";
import type { GenerationResult } from "./generation-result.ts";
import { TextStreamDecoder } from "./text-stream-decoder.ts";

export interface EmitInput {
  model: LlamaModel;
  sampling: SamplingOptions;
  maxOutputTokens: number;
  clock: StreamClock;
  signal: AbortSignal | undefined;
  /** Tokens the output follows (an answer being continued): context for the first ones' text. */
  precedingTokens?: readonly Token[] | undefined;
  /** Special tokens whose text is output (a chat format's preserved tokens); others are not. */
  shownSpecialTokens?: ReadonlySet<Token> | undefined;
}

/** Consumes `tokens` until a stop, the limit or the abort; always ends the token generator. */
export async function* emitTextTokens(
  tokens: AsyncGenerator<Token, unknown, unknown>,
  input: EmitInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { signal } = input;
  const decoder = new TextStreamDecoder(
    input.model,
    input.sampling.stop ?? [],
    input.precedingTokens ?? [],
    input.shownSpecialTokens,
  );
  result.finishReason = "stop";
  try {
    for (;;) {
      if (signal?.aborted) {
        result.finishReason = "cancelled";
        break;
      }
      // The abort is raced against the decode step in flight: a cancel ends the stream now, and
      // the step's token is dropped instead of being sent after the cancel.
      const next = await nextOrAbort(tokens, signal);
      if (next === ABORTED) {
        result.finishReason = "cancelled";
        break;
      }
      if (next.done === true) break;
      const token = next.value;
      result.outputTokens += 1;
      input.clock.markToken();
      const step = decoder.push(token);
      if (signal?.aborted) {
        result.finishReason = "cancelled";
        break;
      }
      if (step.text !== "") yield { type: "text-delta", text: step.text };
      if (step.stopped) return;
      if (result.outputTokens >= input.maxOutputTokens) {
        result.finishReason = "length";
        break;
      }
    }
    const rest = decoder.flush();
    if (rest !== "") yield { type: "text-delta", text: rest };
  } finally {
    // Ends the token generator so the sequence is free for the next request; after an abort
    // this waits for at most the one decode step already in flight.
    await tokens.return(undefined);
  }
}

const ABORTED = Symbol("aborted");

/**
 * The iterator's next result, or ABORTED as soon as the signal fires. A listener per step rather
 * than one long-lived abort promise raced each time: racing a promise that never settles keeps one
 * reaction per token alive until the stream ends.
 */
function nextOrAbort<Value>(
  iterator: AsyncIterator<Value>,
  signal: AbortSignal | undefined,
): Promise<IteratorResult<Value> | typeof ABORTED> {
  if (signal === undefined) return iterator.next();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener("abort", onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
