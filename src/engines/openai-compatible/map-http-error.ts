// Every upstream failure becomes a SparkError here and nowhere else: HTTP statuses (retryability
// decided from the status alone: 408, 409, 429, >= 500), transport errors, and errors that arrive
// inside the stream. Messages name the URL and model so a user can act on them.
import { SparkError, type SparkErrorCode } from "../../protocol/spark-error.ts";
import type { OpenAICompatibleTimeouts } from "./upstream-timeouts.ts";

export interface UpstreamErrorContext {
  baseUrl: string;
  model: string;
  /** Where the key comes from, to tell the user what to fix on 401. */
  apiKeyEnv?: string | undefined;
  apiKeySent?: boolean;
  timeouts?: OpenAICompatibleTimeouts;
}

export type ResponseHeaders = Record<string, string | string[] | undefined>;

export interface HttpErrorResponse {
  status: number;
  headers: ResponseHeaders;
  /** The response body as text (possibly cut short); JSON error bodies are read for a message. */
  body: string;
}

export function mapHttpError(
  response: HttpErrorResponse,
  context: UpstreamErrorContext,
): SparkError {
  const { status } = response;
  const parsed = readUpstreamError(response.body);
  const detail = parsed.message === undefined ? "" : `: ${parsed.message}`;
  const where = context.baseUrl;
  const make = (code: SparkErrorCode, message: string, retryable: boolean): SparkError =>
    new SparkError(code, message, {
      retryable,
      status,
      retryAfterMs: retryable ? parseRetryAfterMs(response.headers) : undefined,
    });

  if (status === 400 || status === 413 || status === 422) {
    if (isContextLengthError(parsed)) {
      return make(
        "context_length_exceeded",
        `The conversation is too long for "${context.model}"${detail}`,
        false,
      );
    }
    return make("invalid_request", `${where} rejected the request (${status})${detail}`, false);
  }
  if (status === 401) {
    const fix = context.apiKeySent === false ? "No API key was sent: set" : "Check";
    const keyName = context.apiKeyEnv ?? "the variable named by api_key_env in the model's config";
    return make(
      "authentication_failed",
      `${where} rejected the API key (401)${detail}. ${fix} ${keyName}.`,
      false,
    );
  }
  if (status === 403)
    return make("permission_denied", `${where} refused access (403)${detail}`, false);
  if (status === 404) {
    return make(
      "model_not_found",
      `Model "${context.model}" was not found at ${where} (404)${detail}. Check the model name, and that ` +
        `the base URL includes the API version (e.g. /v1).`,
      false,
    );
  }
  if (status === 408)
    return make("upstream_timeout", `${where} timed out the request (408)${detail}`, true);
  if (status === 409)
    return make("upstream_error", `${where} reported a conflict (409)${detail}`, true);
  if (status === 429) {
    // An exhausted quota is a billing problem: waiting does not help.
    const quota = parsed.code === "insufficient_quota" || parsed.type === "insufficient_quota";
    return make("rate_limited", `${where} is rate limiting requests (429)${detail}`, !quota);
  }
  if (status >= 500) return make("upstream_error", `${where} failed (${status})${detail}`, true);
  return make("invalid_request", `${where} rejected the request (${status})${detail}`, false);
}

/** Undici and socket errors: timeouts by phase, refused and reset connections, DNS failures. */
export function mapTransportError(error: unknown, context: UpstreamErrorContext): SparkError {
  if (error instanceof SparkError) return error;
  const code = errorCode(error);
  const where = context.baseUrl;
  const timeouts = context.timeouts;
  const options = { retryable: true, cause: error };
  switch (code) {
    case "UND_ERR_CONNECT_TIMEOUT":
      return new SparkError(
        "upstream_timeout",
        `Could not connect to ${where} within ${timeouts?.connectMs ?? "the"} ms.`,
        options,
      );
    case "UND_ERR_HEADERS_TIMEOUT":
      return upstreamTimeoutError("first-byte", context, error);
    case "UND_ERR_BODY_TIMEOUT":
      return upstreamTimeoutError("idle", context, error);
    case "ECONNREFUSED":
      return new SparkError(
        "network_error",
        `Could not connect to ${where}: connection refused. Is the server running?`,
        options,
      );
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new SparkError(
        "network_error",
        `Could not resolve the host of ${where}; check base_url and the network.`,
        options,
      );
    case "UND_ERR_SOCKET":
    case "ECONNRESET":
    case "EPIPE":
      return new SparkError(
        "network_error",
        `The connection to ${where} closed unexpectedly.`,
        options,
      );
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return new SparkError(
        "network_error",
        `Request to ${where} failed: ${message}${code === undefined ? "" : ` (${code})`}`,
        options,
      );
    }
  }
}

/**
 * Silence past a timeout, on either transport: nothing before `firstByteMs` (no response), or a
 * stream that went quiet for `idleMs` mid-way.
 */
export function upstreamTimeoutError(
  phase: "first-byte" | "idle",
  context: UpstreamErrorContext,
  cause?: unknown,
): SparkError {
  const where = context.baseUrl;
  const message =
    phase === "first-byte"
      ? `${where} sent no response within ${context.timeouts?.firstByteMs ?? "the"} ms.`
      : `${where} stalled: nothing arrived for ${context.timeouts?.idleMs ?? "the"} ms mid-stream.`;
  return new SparkError("upstream_timeout", message, { retryable: true, cause });
}

/** An `{"error": {...}}` object sent as a data line after the stream began. */
export function mapStreamError(
  payload: { message?: string | null; code?: string | number | null; type?: string | null },
  context: UpstreamErrorContext,
): SparkError {
  if (typeof payload.code === "number" && payload.code >= 400 && payload.code < 600) {
    return mapHttpError(
      { status: payload.code, headers: {}, body: JSON.stringify({ error: payload }) },
      context,
    );
  }
  const message =
    payload.message ??
    payload.type ??
    (payload.code === undefined ? "unknown error" : String(payload.code));
  return new SparkError("upstream_error", `${context.baseUrl} failed mid-stream: ${message}`, {
    retryable: true,
  });
}

/** `retry-after-ms`, then `retry-after` as seconds or as an HTTP date; undefined when absent. */
export function parseRetryAfterMs(headers: ResponseHeaders, now = Date.now()): number | undefined {
  const milliseconds = Number(firstHeader(headers["retry-after-ms"]));
  if (
    firstHeader(headers["retry-after-ms"]) !== undefined &&
    Number.isFinite(milliseconds) &&
    milliseconds >= 0
  ) {
    return Math.round(milliseconds);
  }
  const value = firstHeader(headers["retry-after"])?.trim();
  if (value === undefined || value === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

interface UpstreamErrorBody {
  message: string | undefined;
  code: string | undefined;
  type: string | undefined;
}

/** Reads the shapes servers use: OpenAI's {error:{message}}, vLLM's {message}, FastAPI's {detail}. */
export function readUpstreamError(body: string): UpstreamErrorBody {
  const result: UpstreamErrorBody = { message: undefined, code: undefined, type: undefined };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const text = body.trim();
    // An HTML error page says nothing useful in a one-line message.
    if (text !== "" && !text.startsWith("<")) result.message = text.slice(0, 300);
    return result;
  }
  if (!isRecord(json)) return result;
  const error = json.error;
  const source = isRecord(error) ? error : json;
  if (typeof error === "string") result.message = error;
  else if (typeof source.message === "string") result.message = source.message;
  else if (typeof json.detail === "string") result.message = json.detail;
  else if (Array.isArray(json.detail)) {
    result.message = json.detail
      .map((entry) =>
        isRecord(entry) && typeof entry.msg === "string" ? entry.msg : JSON.stringify(entry),
      )
      .join("; ");
  }
  if (typeof source.code === "string") result.code = source.code;
  if (typeof source.type === "string") result.type = source.type;
  return result;
}

function isContextLengthError(parsed: UpstreamErrorBody): boolean {
  if (parsed.code === "context_length_exceeded" || parsed.type === "exceed_context_size_error")
    return true;
  return /context length|context window|context size|maximum context|prompt is too long|too many tokens/i.test(
    parsed.message ?? "",
  );
}

function errorCode(error: unknown): string | undefined {
  if (!isRecord(error)) return undefined;
  if (typeof error.code === "string") return error.code;
  // Node reports a failed happy-eyeballs connect as an AggregateError of per-address errors.
  if (Array.isArray(error.errors)) return errorCode(error.errors[0]);
  return isRecord(error.cause) ? errorCode(error.cause) : undefined;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
