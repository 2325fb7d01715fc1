// Upstream finish_reason strings to Spark's FinishReason. Reasons Spark has no name for become an
// error that says what happened, rather than a silent "stop" over a cut-off answer.
import type { FinishReason } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export interface MappedFinishReason {
  reason: FinishReason;
  error?: SparkError;
}

export function mapFinishReason(upstreamReason: string): MappedFinishReason {
  switch (upstreamReason) {
    case "stop":
    case "eos":
    case "end_turn":
    case "stop_sequence":
      return { reason: "stop" };
    case "length":
    case "max_tokens":
      return { reason: "length" };
    case "tool_calls":
    case "function_call":
      return { reason: "tool_calls" };
    case "content_filter":
      return {
        reason: "error",
        error: new SparkError(
          "upstream_error",
          "The upstream's content filter stopped the output; rephrase the request.",
        ),
      };
    case "error":
    case "abort":
      return {
        reason: "error",
        error: new SparkError("upstream_error", "The upstream stopped the output with an error.", {
          retryable: true,
        }),
      };
    default:
      // A server-specific spelling of "done": the text it sent is complete.
      return { reason: "stop" };
  }
}
