// The one error type that crosses every layer and the wire: a stable code, whether a retry can help,
// and a message a person can act on.

export type SparkErrorCode =
  | "invalid_request"
  | "invalid_config"
  | "model_not_found"
  | "model_file_missing"
  | "model_file_invalid"
  | "model_load_failed"
  | "context_length_exceeded"
  | "fim_unsupported"
  | "continuation_unsupported"
  | "authentication_failed"
  | "permission_denied"
  | "rate_limited"
  | "upstream_error"
  | "upstream_timeout"
  | "network_error"
  | "protocol_error"
  | "cancelled"
  | "engine_disposed"
  | "engine_busy"
  | "download_failed"
  | "checksum_mismatch"
  | "offline"
  | "store_unavailable"
  | "internal_error";

export interface SparkErrorJson {
  type: "error";
  code: SparkErrorCode;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  status?: number;
}

export interface SparkErrorOptions {
  retryable?: boolean;
  cause?: unknown;
  retryAfterMs?: number;
  status?: number;
}

export class SparkError extends Error {
  override readonly name = "SparkError";
  readonly code: SparkErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;

  constructor(code: SparkErrorCode, message: string, options: SparkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }

  toJSON(): SparkErrorJson {
    const json: SparkErrorJson = {
      type: "error",
      code: this.code,
      message: this.message,
      retryable: this.retryable,
    };
    if (this.retryAfterMs !== undefined) json.retryAfterMs = this.retryAfterMs;
    if (this.status !== undefined) json.status = this.status;
    return json;
  }

  static isSparkError(value: unknown): value is SparkError {
    return value instanceof SparkError;
  }

  /** Wraps anything thrown into a SparkError, keeping one that already is. */
  static from(value: unknown, fallbackCode: SparkErrorCode = "internal_error"): SparkError {
    if (value instanceof SparkError) return value;
    if (value instanceof Error && value.name === "AbortError") {
      return new SparkError("cancelled", "The request was cancelled.", { cause: value });
    }
    const message = value instanceof Error ? value.message : String(value);
    return new SparkError(fallbackCode, message, { cause: value });
  }
}
