// The one error type of the extension's clients: a code a caller can branch on, and a message that
// says what to do.

export type SparkClientErrorCode =
  | "server_unreachable"
  | "unauthorized"
  | "timeout"
  | "http_error"
  | "invalid_response"
  | "server_error";

export class SparkClientError extends Error {
  override readonly name = "SparkClientError";

  constructor(
    readonly code: SparkClientErrorCode,
    message: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.status = options.status;
  }

  readonly status: number | undefined;
}
