// Drains an engine stream into one result: for one-shot callers (non-streaming HTTP, tests, CLI).
import type { EngineEvent, FinishReason, ToolCall, Timings, Usage } from "./engine.ts";
import type { SparkError } from "../protocol/spark-error.ts";

export interface CollectedStream {
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  error: SparkError | undefined;
  usage: Usage | undefined;
  timings: Timings | undefined;
  events: EngineEvent[];
}

export async function collectStream(events: AsyncIterable<EngineEvent>): Promise<CollectedStream> {
  const result: CollectedStream = {
    text: "",
    toolCalls: [],
    finishReason: "error",
    error: undefined,
    usage: undefined,
    timings: undefined,
    events: [],
  };
  for await (const event of events) {
    result.events.push(event);
    switch (event.type) {
      case "text-delta":
        result.text += event.text;
        break;
      case "tool-call-end":
        result.toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
        break;
      case "usage":
        result.usage = event.usage;
        break;
      case "timings":
        result.timings = event.timings;
        break;
      case "finish":
        result.finishReason = event.reason;
        result.error = event.error;
        break;
      case "tool-call-start":
      case "tool-call-delta":
        break;
      default:
        event satisfies never;
    }
  }
  return result;
}
