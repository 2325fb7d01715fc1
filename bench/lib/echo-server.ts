// A bare echo endpoint in the serving process, beside the gateway: the transport floor a turn's
// overhead is compared with. A WebSocket message or an HTTP POST body is read whole and answered
// with a short fixed reply, with no parsing and no gateway code in between.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

export const ECHO_REPLY = JSON.stringify({ type: "echo", text: "x".repeat(160) });

export async function startEchoServer(): Promise<{ url: string; server: Server }> {
  const webSockets = new WebSocketServer({ noServer: true });
  const server = createServer((request, response) => {
    // Drained, not parsed: the request's bytes cross the socket and are read, as a turn's are.
    request.on("data", () => {});
    request.on("end", () => {
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(ECHO_REPLY),
      });
      response.end(ECHO_REPLY);
    });
  });
  server.on("upgrade", (request, socket, head) => {
    webSockets.handleUpgrade(request, socket, head, (webSocket) => {
      webSocket.on("message", () => webSocket.send(ECHO_REPLY));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}
