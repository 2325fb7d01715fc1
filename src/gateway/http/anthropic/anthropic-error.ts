// A gateway error as Anthropic's API words it: `{type: "error", error: {type, message}}` with the
// status its SDKs and Claude Code act on (401 authentication_error, 429 rate_limit_error, 529
// overloaded_error for a busy engine, which they retry), sent as a reply or as an `error` event.
import type { ServerResponse } from "node:http";
import type {
  AnthropicErrorBody,
  AnthropicErrorType,
} from "../../../protocol/anthropic-messages.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import { sendJson } from "../http-io.ts";
import { describeWireError } from "../../wire/wire-error.ts";

export interface AnthropicWireError {
  status: number;
  body: AnthropicErrorBody;
}

/** Anthropic's "overloaded" status: its clients back off and retry it like a 429. */
const OVERLOADED_STATUS = 529;

export function describeAnthropicError(error: unknown): AnthropicWireError {
  const wire = describeWireError(error);
  const code = error instanceof SparkError ? error.code : undefined;
  const status = code === "engine_busy" ? OVERLOADED_STATUS : wire.status;
  return {
    status,
    body: { type: "error", error: { type: anthropicErrorType(status), message: wire.message } },
  };
}

export function anthropicErrorType(status: number): AnthropicErrorType {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === OVERLOADED_STATUS) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** The error as a reply; a stream already started is cut instead (the `error` event is the
 * stream writer's to send). */
export function sendAnthropicError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const { status, body } = describeAnthropicError(error);
  const headers: Record<string, string> = {};
  // A refused body is not read on: Node closes the connection once this is sent.
  if (!response.req.complete) headers.connection = "close";
  const retryAfterMs = error instanceof SparkError ? error.retryAfterMs : undefined;
  if (retryAfterMs !== undefined) headers["retry-after"] = String(Math.ceil(retryAfterMs / 1000));
  sendJson(response, status, body, headers);
}
