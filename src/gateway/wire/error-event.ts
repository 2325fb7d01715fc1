// The `error` event a WebSocket client gets: the SDK's ResponseErrorEvent fields at the top, and
// the same nested under `error` with `status`, the way OpenAI's WebSocket mode sends them.
import type { ResponseErrorEvent } from "../../protocol/responses-events.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { describeWireError } from "./wire-error.ts";

export function errorEvent(
  error: unknown,
  sequenceNumber: number,
  responseId?: string,
): ResponseErrorEvent {
  const wire = describeWireError(error);
  const event: ResponseErrorEvent = {
    type: "error",
    sequence_number: sequenceNumber,
    code: wire.code,
    message: wire.message,
    param: wire.param,
    status: wire.status,
    error: { type: wire.type, code: wire.code, message: wire.message, param: wire.param },
  };
  if (responseId !== undefined) event.response_id = responseId;
  const retryAfterMs = error instanceof SparkError ? error.retryAfterMs : undefined;
  if (retryAfterMs !== undefined) event.error.retry_after = Math.ceil(retryAfterMs / 1000);
  return event;
}
