// A SparkError as clients see it: the HTTP status, the OpenAI-style error body, and the code on
// the wire (usually the Spark code; OpenAI's own where clients match on it).
import {
  SparkError,
  type SparkErrorCode,
  type SparkErrorOptions,
} from "../../protocol/spark-error.ts";
import { clientFacingEngineError } from "./engine-error.ts";

export interface WireErrorOptions extends SparkErrorOptions {
  /** The code clients see when it differs from the Spark code (e.g. previous_response_not_found). */
  wireCode?: string;
  /** The request field at fault. */
  param?: string;
}

export class WireError extends SparkError {
  readonly wireCode: string;
  readonly param: string | null;

  constructor(code: SparkErrorCode, message: string, options: WireErrorOptions = {}) {
    super(code, message, { ...options, status: options.status ?? statusForCode(code) });
    this.wireCode = options.wireCode ?? code;
    this.param = options.param ?? null;
  }
}

export interface WireErrorBody {
  status: number;
  code: string;
  message: string;
  param: string | null;
  /** OpenAI's error family: invalid_request_error, authentication_error, server_error… */
  type: string;
}

export function describeWireError(error: unknown): WireErrorBody {
  const thrown = SparkError.from(error);
  // Anything not raised by the gateway itself came from an engine (a model listing, a run).
  const sparkError = thrown instanceof WireError ? thrown : clientFacingEngineError(thrown);
  // An engine's SparkError may carry its upstream's status; the client's status follows the code.
  const status =
    sparkError instanceof WireError ? (sparkError.status ?? 500) : statusForCode(sparkError.code);
  return {
    status,
    code: sparkError instanceof WireError ? sparkError.wireCode : sparkError.code,
    message: sparkError.message,
    param: sparkError instanceof WireError ? sparkError.param : null,
    type: errorType(status),
  };
}

function statusForCode(code: SparkErrorCode): number {
  switch (code) {
    case "invalid_request":
    case "context_length_exceeded":
    case "fim_unsupported":
    case "continuation_unsupported":
      return 400;
    case "authentication_failed":
      return 401;
    case "permission_denied":
      return 403;
    case "model_not_found":
      return 404;
    case "cancelled":
      return 499;
    case "rate_limited":
      return 429;
    // protocol_error is an upstream breaking the protocol: never the client's fault.
    case "upstream_error":
    case "network_error":
    case "protocol_error":
      return 502;
    case "engine_busy":
    case "engine_disposed":
    case "offline":
    case "store_unavailable":
      return 503;
    case "upstream_timeout":
      return 504;
    case "invalid_config":
    case "model_file_missing":
    case "model_file_invalid":
    case "model_load_failed":
    case "download_failed":
    case "checksum_mismatch":
    case "internal_error":
      return 500;
    default:
      code satisfies never;
      return 500;
  }
}

function errorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}
