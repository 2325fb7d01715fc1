// A loopback WebSocket proxy in front of a real upstream (a `spark serve` gateway): forwards every
// frame both ways unchanged and records what the client sent, so a test can assert on the exact
// `response.create` frames an engine put on the wire.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";

export class WsRecordingProxy {
  /** Client frames, parsed, with the index of the client connection that sent them. */
  readonly sent: Array<{ connection: number; frame: Record<string, unknown> }> = [];
  connections = 0;

  private constructor(
    private readonly server: Server,
    private readonly webSockets: WebSocketServer,
  ) {}

  /** `target` is the upstream's origin, e.g. http://127.0.0.1:1234. */
  static async start(target: string): Promise<WsRecordingProxy> {
    const server = createServer();
    const webSockets = new WebSocketServer({ server });
    const proxy = new WsRecordingProxy(server, webSockets);
    webSockets.on("connection", (client, request) => {
      const connection = ++proxy.connections;
      const upstream = new WebSocket(`${target.replace(/^http/, "ws")}${request.url ?? "/"}`, {
        headers: { authorization: request.headers.authorization ?? "" },
      });
      const pending: string[] = [];
      upstream.on("open", () => {
        for (const text of pending.splice(0)) upstream.send(text);
      });
      upstream.on("message", (data: Buffer) => client.send(data.toString("utf8")));
      upstream.on("close", () => client.close());
      upstream.on("error", () => client.terminate());
      client.on("message", (data: Buffer) => {
        const text = data.toString("utf8");
        proxy.sent.push({ connection, frame: JSON.parse(text) as Record<string, unknown> });
        if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
        else pending.push(text);
      });
      client.on("close", () => upstream.close());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  creates(): Array<Record<string, unknown>> {
    return this.sent.map((sent) => sent.frame).filter((frame) => frame.type === "response.create");
  }

  async close(): Promise<void> {
    for (const client of this.webSockets.clients) client.terminate();
    this.webSockets.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
