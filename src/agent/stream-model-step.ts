// One model call of a turn: forwards text as it streams and collects tool calls. On interrupt it
// goes silent at once, keeps the text streamed so far, and waits only briefly for the engine.
import type { EngineEvent, EngineRequest } from "../engines/engine.ts";
import {
  applyStreamEvent,
  emptyStreamOutcome,
  type StreamOutcome,
} from "../engines/collect-stream.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { ModelClient, ModelRoute } from "./model-client/model-client.ts";

/** How long an aborted stream may take to deliver its usage and finish before it is let go. */
const ABORT_GRACE_MS = 1000;

export interface ModelStepResult extends StreamOutcome {
  /** The signal aborted before the model finished: text and tool calls are partial. */
  interrupted: boolean;
}

export async function streamModelStep(
  client: ModelClient,
  request: EngineRequest,
  signal: AbortSignal,
  onText: (text: string) => void,
  onRoute?: (route: ModelRoute) => void,
): Promise<ModelStepResult> {
  const result: ModelStepResult = { ...emptyStreamOutcome(), interrupted: false };
  const options = onRoute === undefined ? { signal } : { signal, onRoute };
  const iterator = client.stream(request, options)[Symbol.asyncIterator]();
  let abortedAt: number | undefined;
  try {
    for (;;) {
      if (signal.aborted) abortedAt ??= performance.now();
      const next = await nextOrGiveUp(iterator, signal, abortedAt);
      if (signal.aborted) {
        abortedAt ??= performance.now();
        result.interrupted = true;
      }
      if (next === undefined || next.done === true) break;
      const event = next.value;
      // Once interrupted the step goes silent: only usage, timings and the finish still count.
      const isOutput =
        event.type === "text-delta" ||
        event.type === "reasoning-delta" ||
        event.type.startsWith("tool-call");
      if (result.interrupted && isOutput) continue;
      // Reasoning is folded into the outcome apart from the text: never shown as the answer.
      if (event.type === "text-delta") onText(event.text);
      applyStreamEvent(result, event);
      if (event.type === "finish") {
        if (event.reason === "cancelled") result.interrupted = true;
        break;
      }
    }
  } catch (error) {
    // A client that throws instead of ending the stream with an error still ends the step.
    result.error = SparkError.from(error, "upstream_error");
    result.finishReason = "error";
  } finally {
    void iterator.return?.();
  }
  if (result.interrupted) {
    result.finishReason = "cancelled";
    result.error = undefined;
  } else if (result.finishReason === "error" && result.error === undefined) {
    result.error = new SparkError(
      "protocol_error",
      "The model stream ended without a finish event.",
    );
  }
  return result;
}

/** The next event, or undefined when an aborted stream did not finish within the grace period. */
async function nextOrGiveUp(
  iterator: AsyncIterator<EngineEvent>,
  signal: AbortSignal,
  abortedAt: number | undefined,
): Promise<IteratorResult<EngineEvent> | undefined> {
  const next = iterator.next();
  if (abortedAt !== undefined) {
    return raceWithTimeout(next, Math.max(0, abortedAt + ABORT_GRACE_MS - performance.now()));
  }
  // Wait for the event or for an abort; after an abort, for the grace period at most.
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  const first = await Promise.race([next, aborted]);
  if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  if (first !== "aborted") return first;
  return raceWithTimeout(next, ABORT_GRACE_MS);
}

async function raceWithTimeout<Value>(
  promise: Promise<Value>,
  milliseconds: number,
): Promise<Value | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), milliseconds);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
