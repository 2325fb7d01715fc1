// The WebSocket handshake on GET /v1/responses: path, Host, browser Origin and API key are checked
// before the upgrade, so a refused client gets a plain HTTP status (404, 403, 401).
import { STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { authenticate, checkRequestSource } from "./auth.ts";
import type { GatewayContext } from "./gateway-context.ts";
import { invalidTargetError, requestPathOf } from "./request-path.ts";
import { describeWireError, WireError } from "./wire-error.ts";

export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function createUpgradeHandler(
  context: GatewayContext,
  server: WebSocketServer,
  /** `rawSocket` is the TCP socket under the WebSocket, for write batching. */
  onConnection: (socket: WebSocket, apiKey: string | undefined, rawSocket: Duplex) => void,
): UpgradeHandler {
  return (request, socket, head) => {
    const path = requestPathOf(request.url)?.replace(/\/+$/, "");
    if (path === undefined) return refuse(socket, invalidTargetError(request.url));
    if (path !== "/v1/responses") {
      return refuse(
        socket,
        new WireError("invalid_request", `No WebSocket endpoint at ${path}; use /v1/responses.`, {
          wireCode: "not_found",
          status: 404,
        }),
      );
    }
    const refused = checkRequestSource(request.headers, context.config);
    if (refused !== undefined) return refuse(socket, refused);
    const auth = authenticate(request.headers, context.config.apiKeys);
    if (!auth.ok) return refuse(socket, auth.error);
    server.handleUpgrade(request, socket, head, (webSocket) =>
      onConnection(webSocket, auth.apiKey, socket),
    );
  };
}

function refuse(socket: Duplex, error: WireError): void {
  const wire = describeWireError(error);
  const body = JSON.stringify({
    error: { message: wire.message, type: wire.type, param: wire.param, code: wire.code },
  });
  socket.on("error", () => {});
  socket.end(
    `HTTP/1.1 ${wire.status} ${STATUS_CODES[wire.status] ?? "Error"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
