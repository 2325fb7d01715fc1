// An `error` frame from a Responses WebSocket as a SparkError, through the same mapper as HTTP
// errors: OpenAI's WebSocket mode nests `{code, message, param}` under `error` beside a `status`;
// the SDK's ResponseErrorEvent has them at the top. A retry hint (`retry_after` seconds, Spark's,
// or `headers`) is kept for the router.
import type { SparkError } from "../../../protocol/spark-error.ts";
import {
  mapHttpError,
  mapStreamError,
  type ResponseHeaders,
  type UpstreamErrorContext,
} from "../map-http-error.ts";

export interface WebSocketErrorFrame {
  type?: unknown;
  status?: unknown;
  code?: unknown;
  message?: unknown;
  param?: unknown;
  headers?: unknown;
  retry_after?: unknown;
  error?: unknown;
}

export interface WebSocketErrorDetail {
  status: number | undefined;
  code: string | undefined;
  message: string | undefined;
  type: string | undefined;
  headers: ResponseHeaders;
}

/** OpenAI's codes for errors that carry no status: the status they stand for. */
const statusForCode: Record<string, number> = {
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  server_error: 500,
  invalid_api_key: 401,
  context_length_exceeded: 400,
  invalid_prompt: 400,
  model_not_found: 404,
};

export function readWebSocketError(frame: WebSocketErrorFrame): WebSocketErrorDetail {
  const nested = isRecord(frame.error) ? frame.error : {};
  const code = text(nested.code) ?? text(frame.code);
  const status = numeric(frame.status) ?? numeric(nested.status);
  const headers: ResponseHeaders = {};
  if (isRecord(frame.headers)) {
    for (const [name, value] of Object.entries(frame.headers))
      if (typeof value === "string") headers[name.toLowerCase()] = value;
  }
  const retryAfter = numeric(nested.retry_after) ?? numeric(frame.retry_after);
  if (retryAfter !== undefined && headers["retry-after"] === undefined)
    headers["retry-after"] = String(retryAfter);
  return {
    status: status ?? (code === undefined ? undefined : statusForCode[code]),
    code,
    message: text(nested.message) ?? text(frame.message),
    type: text(nested.type),
    headers,
  };
}

export function mapWebSocketError(
  frame: WebSocketErrorFrame,
  context: UpstreamErrorContext,
): SparkError {
  const detail = readWebSocketError(frame);
  if (detail.status !== undefined && detail.status >= 400) {
    const body = JSON.stringify({
      error: { message: detail.message, code: detail.code, type: detail.type },
    });
    return mapHttpError({ status: detail.status, headers: detail.headers, body }, context);
  }
  return mapStreamError(
    { message: detail.message ?? null, code: detail.code ?? null, type: detail.type ?? null },
    context,
  );
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function numeric(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && /^\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
