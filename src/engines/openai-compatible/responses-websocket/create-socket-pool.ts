// The socket pool of an engine in WebSocket mode: the upstream's /responses as a ws(s) URL, and
// the handshake headers OpenAI's WebSocket mode asks for (its beta header, the key as a bearer).
import type { UpstreamErrorContext } from "../map-http-error.ts";
import type { ResolvedOpenAICompatibleOptions } from "../openai-compatible-options.ts";
import { requestHeaders } from "../request-headers.ts";
import { ResponsesSocketPool } from "./responses-socket-pool.ts";

/** The WebSocket mode version Spark speaks, sent as `OpenAI-Beta`. */
export const responsesWebSocketBeta = "responses_websockets=2026-02-06";

export function createSocketPool(
  options: ResolvedOpenAICompatibleOptions,
  errorContext: UpstreamErrorContext,
): ResponsesSocketPool {
  const { "content-type": _contentType, accept: _accept, ...headers } = requestHeaders(options, "");
  return new ResponsesSocketPool(
    {
      url: `${options.baseUrl.replace(/^http/, "ws")}/responses`,
      headers: { "openai-beta": responsesWebSocketBeta, ...headers },
      connectMs: options.timeouts.connectMs,
      maxFrameBytes: options.maxEventBytes,
      errorContext,
    },
    options.webSocket,
  );
}
