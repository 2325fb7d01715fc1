// Opens a pooled keep-alive connection before the first real request, so that request skips DNS,
// TCP and TLS. Undici connects only when a request is queued (nodejs/undici#317: no pre-connect
// API), so this sends the cheapest request every server answers quickly: GET /models/{model}.
// Any HTTP status counts as warm; only a transport failure rejects.
import type { Dispatcher } from "undici";
import { mapTransportError, type UpstreamErrorContext } from "./map-http-error.ts";
import type { ResolvedOpenAICompatibleOptions } from "./openai-compatible-options.ts";
import { requestHeaders } from "./request-headers.ts";

export async function warmUpConnection(
  dispatcher: Dispatcher,
  options: ResolvedOpenAICompatibleOptions,
  errorContext: UpstreamErrorContext,
): Promise<void> {
  try {
    const response = await dispatcher.request({
      method: "GET",
      // Not /models: OpenRouter's list is megabytes; one model's entry (or a 404) is tiny.
      path: `${options.basePath}/models/${encodeURIComponent(options.model)}`,
      headers: requestHeaders(options, "application/json"),
      headersTimeout: options.timeouts.firstByteMs,
      bodyTimeout: options.timeouts.idleMs,
    });
    // Reading the body to its end is what returns the connection to the pool.
    await response.body.dump({ limit: 256 * 1024 });
  } catch (error) {
    throw mapTransportError(error, errorContext);
  }
}
