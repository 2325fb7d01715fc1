// The last event an SSE client gets from a replica that drained while its response was still
// generating: a `response.failed` with a retryable code and `retry_after`, which the `openai` SDK's
// stream helpers surface as an error and Codex CLI retries. The retry reaches another replica,
// which finds the response by the request's fingerprint and continues it (responses-retry.ts).
import type { ResponseObject, ResponseServerEvent } from "../../protocol/responses-events.ts";

export function handedOverEvent(
  skeleton: ResponseObject,
  sequenceNumber: number,
): ResponseServerEvent {
  return {
    type: "response.failed",
    sequence_number: sequenceNumber,
    response: {
      ...skeleton,
      status: "failed",
      error: {
        code: "server_error",
        message:
          "This replica shut down while the response was generating; send the same request again: another replica continues it.",
        spark_code: "engine_busy",
        retry_after: 1,
      },
    },
  };
}
