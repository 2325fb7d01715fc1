// Opens pooled keep-alive connections before the first real request, so it skips DNS, TCP and
// TLS. Undici connects only when a request is queued (nodejs/undici#317: no pre-connect API), so
// this sends the cheapest request every server answers quickly: GET /models/{model}. Any HTTP
// status counts as warm; only a transport failure rejects.
import type { Dispatcher } from "undici";
import { mapTransportError, type UpstreamErrorContext } from "./map-http-error.ts";
import type { ResolvedOpenAICompatibleOptions } from "./openai-compatible-options.ts";
import { requestHeaders } from "./request-headers.ts";

/**
 * Two, because undici waits one event-loop turn before reusing a finished socket: an agent that
 * sends its next turn the moment a stream ends lands on the second connection, which is warm too.
 */
export const warmConnectionCount = 2;

export async function warmUpConnection(
  dispatcher: Dispatcher,
  options: ResolvedOpenAICompatibleOptions,
  errorContext: UpstreamErrorContext,
): Promise<void> {
  const warmOne = async (): Promise<void> => {
    const response = await dispatcher.request({
      method: "GET",
      // Not /models where a model is named: OpenRouter's list is megabytes; one entry (or a 404)
      // is tiny. Servers without a named model are local and list only a few.
      path:
        options.model === undefined
          ? `${options.basePath}/models`
          : `${options.basePath}/models/${encodeURIComponent(options.model)}`,
      headers: requestHeaders(options, "application/json"),
      headersTimeout: options.timeouts.firstByteMs,
      bodyTimeout: options.timeouts.idleMs,
    });
    // Reading the body to its end is what returns the connection to the pool. Not `dump()`: it
    // resolves before undici marks the connection idle.
    await response.body.text();
  };
  try {
    // Concurrent, so the pool opens one connection per request.
    await Promise.all(Array.from({ length: warmConnectionCount }, warmOne));
  } catch (error) {
    throw mapTransportError(error, errorContext);
  }
  // Undici frees a socket for reuse one turn of the event loop after its response ends.
  await new Promise((resolve) => setImmediate(resolve));
}
