// GET {baseUrl}/models as Spark ModelInfo, reading the context length from whichever field the
// server fills (OpenRouter `context_length`, vLLM `max_model_len`, llama-server `meta.n_ctx_train`).
import type { Dispatcher } from "undici";
import type { ModelInfo } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { mapHttpError, mapTransportError, type UpstreamErrorContext } from "./map-http-error.ts";
import type { ResolvedOpenAICompatibleOptions } from "./openai-compatible-options.ts";
import { requestHeaders } from "./request-headers.ts";

export async function listUpstreamModels(
  dispatcher: Dispatcher,
  options: ResolvedOpenAICompatibleOptions,
  errorContext: UpstreamErrorContext,
): Promise<ModelInfo[]> {
  let response: Dispatcher.ResponseData;
  let text: string;
  try {
    response = await dispatcher.request({
      method: "GET",
      path: `${options.basePath}/models`,
      headers: requestHeaders(options, "application/json"),
      headersTimeout: options.timeouts.firstByteMs,
      bodyTimeout: options.timeouts.idleMs,
    });
    text = await response.body.text();
  } catch (error) {
    throw mapTransportError(error, errorContext);
  }
  if (response.statusCode >= 300) {
    throw mapHttpError(
      { status: response.statusCode, headers: response.headers, body: text },
      errorContext,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SparkError("protocol_error", `${options.baseUrl}/models did not answer with JSON.`, {
      cause: error,
    });
  }
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) {
    throw new SparkError(
      "protocol_error",
      `${options.baseUrl}/models answered without a "data" list.`,
    );
  }
  return data.flatMap((entry: unknown): ModelInfo[] => {
    if (typeof entry !== "object" || entry === null) return [];
    const model = entry as {
      id?: unknown;
      context_length?: unknown;
      max_model_len?: unknown;
      meta?: { n_ctx_train?: unknown };
    };
    if (typeof model.id !== "string") return [];
    const contextLength = [model.context_length, model.max_model_len, model.meta?.n_ctx_train].find(
      (value): value is number => typeof value === "number" && value > 0,
    );
    return [
      {
        id: model.id,
        engine: "openai-compatible",
        ...(contextLength === undefined ? {} : { contextLength }),
      },
    ];
  });
}
