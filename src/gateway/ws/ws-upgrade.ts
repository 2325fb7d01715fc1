// The WebSocket handshake on GET /v1/responses: path, Host, browser Origin and API key are checked
// before the upgrade, so a refused client gets a plain HTTP status (403, 401, then 404: without a
// valid key no path is told apart from another).
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { authenticate, checkRequestSource } from "../access/auth.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { invalidTargetError, requestPathOf } from "../access/request-path.ts";
import { describeWireError, WireError } from "../wire/wire-error.ts";

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function createUpgradeHandler(
  context: GatewayContext,
  server: WebSocketServer,
  /** `rawSocket` is the TCP socket under the WebSocket, for write batching. */
  onConnection: (socket: WebSocket, apiKey: string | undefined, rawSocket: Duplex) => void,
): UpgradeHandler {
  return (request, socket, head) => {
    const path = requestPathOf(request.url)?.replace(/\/+$/, "");
    if (path === undefined) return refuseUpgrade(socket, invalidTargetError(request.url));
    const refused = checkRequestSource(request.headers, context.config);
    if (refused !== undefined) return refuseUpgrade(socket, refused);
    // The key before the path: without one, every path answers the same 401, so the answers do
    // not tell an unauthenticated client which endpoints exist.
    const auth = authenticate(request.headers, context.config.apiKeys);
    if (!auth.ok) return refuseUpgrade(socket, auth.error);
    if (path !== "/v1/responses") {
      return refuseUpgrade(
        socket,
        new WireError("invalid_request", `No WebSocket endpoint at ${path}; use /v1/responses.`, {
          wireCode: "not_found",
          status: 404,
        }),
      );
    }
    server.handleUpgrade(request, socket, head, (webSocket) =>
      onConnection(webSocket, auth.apiKey, socket),
    );
  };
}

/** Answers a handshake with a plain HTTP error (the OpenAI error body) and closes the socket. */
export function refuseUpgrade(socket: Duplex, error: WireError): void {
  const wire = describeWireError(error);
  const retryAfter =
    error.retryAfterMs === undefined
      ? ""
      : `Retry-After: ${Math.ceil(error.retryAfterMs / 1000)}\r\n`;
  const challenge = wire.status === 401 ? 'WWW-Authenticate: Bearer realm="spark"\r\n' : "";
  const body = JSON.stringify({
    error: { message: wire.message, type: wire.type, param: wire.param, code: wire.code },
  });
  socket.on("error", () => {});
  socket.end(
    `HTTP/1.1 ${wire.status} ${STATUS_CODES[wire.status] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      retryAfter +
      challenge +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
