// Maps what can go wrong fetching a model into SparkErrors a person can act on; offline gets the
// full "how to run without downloading" guidance.
import { SparkError } from "../protocol/spark-error.ts";

/** DNS and connect failures: the machine cannot reach the host at all. */
const OFFLINE_CODES = new Set([
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNREFUSED",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);

export const OFFLINE_GUIDANCE = [
  "To run without downloading, point Spark at a .gguf you already have:",
  "  spark prompt --model /path/to/model.gguf",
  "  SPARK_MODEL_PATH=/path/to/model.gguf spark",
  "  or in ~/.spark/config.toml:",
  "    [models.local]",
  '    engine = "llama-cpp"',
  '    path = "/path/to/model.gguf"',
  "Or use a hosted provider, in ~/.spark/config.toml:",
  "    [models.fast]",
  '    engine = "openai-compatible"',
  '    preset = "cerebras"',
  "  and set CEREBRAS_API_KEY in the environment.",
].join("\n");

/** An error thrown before or while streaming the body, as the SparkError to surface. */
export function toDownloadError(
  error: unknown,
  url: string,
  signal: AbortSignal | undefined,
  receivedBytes: number,
): SparkError {
  if (error instanceof SparkError) return error;
  if (signal?.aborted === true) {
    const kept = receivedBytes > 0 ? ` ${receivedBytes} bytes are kept; pull again to resume.` : "";
    return new SparkError("cancelled", `The download of ${url} was cancelled.${kept}`, {
      cause: error,
    });
  }
  const code = findErrorCode(error);
  const host = safeHost(url);
  if (code !== undefined && OFFLINE_CODES.has(code)) {
    return new SparkError(
      "offline",
      `Cannot reach ${host} to download the model (${code}).\n${OFFLINE_GUIDANCE}`,
      { cause: error, retryable: true },
    );
  }
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  const resume = receivedBytes > 0 ? ` Pull again to resume from ${receivedBytes} bytes.` : "";
  return new SparkError("network_error", `Downloading ${url} failed (${reason}).${resume}`, {
    cause: error,
    retryable: true,
  });
}

export function httpStatusError(status: number, url: string): SparkError {
  if (status === 404 || status === 410) {
    return new SparkError(
      "model_not_found",
      `No model file at ${url} (HTTP ${status}). Check the repository and file or quant name, ` +
        "e.g. hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M.",
      { status },
    );
  }
  if (status === 401 || status === 403) {
    return new SparkError(
      "authentication_failed",
      `${url} refused the download (HTTP ${status}): the repository may be gated or private.`,
      { status },
    );
  }
  const retryable = status === 408 || status === 429 || status >= 500;
  return new SparkError("download_failed", `Downloading ${url} failed with HTTP ${status}.`, {
    status,
    retryable,
  });
}

/** undici hides the system error in `cause`, sometimes inside an AggregateError (happy eyeballs). */
function findErrorCode(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== "object" || error === null) return undefined;
  if ("code" in error && typeof error.code === "string" && /^[A-Z][A-Z0-9_]+$/.test(error.code)) {
    return error.code;
  }
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const code = findErrorCode(inner, depth + 1);
      if (code !== undefined) return code;
    }
  }
  return "cause" in error ? findErrorCode(error.cause, depth + 1) : undefined;
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
