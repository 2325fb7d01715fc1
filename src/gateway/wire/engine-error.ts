// An engine's error as a remote client sees it. The upstream's failures are a 502 upstream_error
// (never a 4xx that blames the client), and upstream addresses stay in the server's log: a client
// learns what went wrong and whether to retry, not where this server's model servers live.
import { SparkError } from "../../protocol/spark-error.ts";

const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>`]+/gi;

/** The error to send; the engine's own error is its `cause` whenever the two differ. */
export function clientFacingEngineError(error: SparkError): SparkError {
  const options = {
    retryable: error.retryable,
    cause: error,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
  };
  switch (error.code) {
    case "protocol_error":
      // A 200 that is not a stream (an HTML page, a proxy's login form) or a malformed stream.
      return new SparkError(
        "upstream_error",
        `The model server behind this gateway sent a malformed response: ${redact(error.message)}`,
        { ...options, retryable: true },
      );
    case "authentication_failed":
    case "permission_denied":
      // The gateway's own upstream credentials, not the client's key: nothing the client can fix.
      return new SparkError(
        "upstream_error",
        "The model server behind this gateway refused the gateway's credentials; its operator must fix the configuration.",
        { ...options, retryable: false },
      );
    case "network_error":
      // Transport messages carry addresses and ports ("connect ECONNREFUSED 10.0.0.5:8000").
      return new SparkError(
        "network_error",
        CLOSED_CONNECTION_CODES.has(causeCode(error) ?? "")
          ? "The model server behind this gateway closed the connection unexpectedly."
          : "The model server behind this gateway could not be reached.",
        options,
      );
    default: {
      const message = redact(error.message);
      return message === error.message ? error : new SparkError(error.code, message, options);
    }
  }
}

/** A connection that was up and then dropped (e.g. the server died mid-stream), not a refusal. */
const CLOSED_CONNECTION_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);

function causeCode(error: SparkError): string | undefined {
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === "string" ? cause.code : undefined;
}

function redact(message: string): string {
  return message.replace(URL_PATTERN, "the upstream server");
}

/** Where an engine's own words are written: the gateway's log (a GatewayContext is one). Narrow,
 * so that this wire-level helper needs nothing of the gateway's composition. */
export interface EngineErrorLog {
  log: { engineError(message: string): void };
}

/** The engine's own words (addresses included) go to the server's log, never to the client. */
export function logEngineError(context: EngineErrorLog, sent: SparkError): void {
  const original = sent.cause;
  if (!(original instanceof SparkError)) return;
  context.log.engineError(
    `engine error ${original.code} (sent as ${sent.code}): ${original.message}`,
  );
}
