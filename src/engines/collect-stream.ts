// Folds an engine stream into one outcome: text, completed tool calls, usage, timings and the
// finish. `applyStreamEvent` is the one fold; `collectStream` drains a whole stream with it for
// one-shot callers (non-streaming HTTP, tests, CLI), and the agent applies it event by event.
import type { EngineEvent, FinishReason, ToolCall, Timings, Usage } from "./engine.ts";
import type { SparkError } from "../protocol/spark-error.ts";

export interface StreamOutcome {
  text: string;
  /** The model's reasoning, kept apart from the answer text (never shown as it). */
  reasoning: string;
  /** Calls that ended: complete arguments, safe to run. */
  toolCalls: ToolCall[];
  /**
   * Calls that started and never ended (the token limit or a stop cut them), with the arguments
   * streamed so far: shown to a client as cut output, never run.
   */
  unfinishedToolCalls: ToolCall[];
  /** "error" until a finish event arrives: a stream without one did not finish. */
  finishReason: FinishReason;
  error: SparkError | undefined;
  usage: Usage | undefined;
  timings: Timings | undefined;
}

export interface CollectedStream extends StreamOutcome {
  events: EngineEvent[];
}

export function emptyStreamOutcome(): StreamOutcome {
  return {
    text: "",
    reasoning: "",
    toolCalls: [],
    unfinishedToolCalls: [],
    finishReason: "error",
    error: undefined,
    usage: undefined,
    timings: undefined,
  };
}

export function applyStreamEvent(outcome: StreamOutcome, event: EngineEvent): void {
  switch (event.type) {
    case "text-delta":
      outcome.text += event.text;
      break;
    case "reasoning-delta":
      outcome.reasoning += event.text;
      break;
    case "tool-call-end":
      outcome.unfinishedToolCalls = outcome.unfinishedToolCalls.filter(
        (call) => call.id !== event.id,
      );
      outcome.toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
      break;
    case "tool-call-start":
      outcome.unfinishedToolCalls.push({ id: event.id, name: event.name, arguments: "" });
      break;
    case "tool-call-delta": {
      const call = outcome.unfinishedToolCalls.find((started) => started.id === event.id);
      if (call !== undefined) call.arguments += event.argumentsDelta;
      break;
    }
    case "usage":
      outcome.usage = event.usage;
      break;
    case "timings":
      outcome.timings = event.timings;
      break;
    case "finish":
      outcome.finishReason = event.reason;
      outcome.error = event.error;
      break;
    default:
      event satisfies never;
  }
}

export async function collectStream(events: AsyncIterable<EngineEvent>): Promise<CollectedStream> {
  const result: CollectedStream = { ...emptyStreamOutcome(), events: [] };
  for await (const event of events) {
    result.events.push(event);
    applyStreamEvent(result, event);
  }
  return result;
}
