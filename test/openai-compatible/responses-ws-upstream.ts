// A loopback stand-in for OpenAI's Responses WebSocket mode: answers each `response.create` by
// replaying recorded frames (test/fixtures/responses-ws/*.jsonl, one frame a line, `{{response_id}}`
// filled in), keeps each connection's finished response ids the way `store: false` does
// (connection-local: a `previous_response_id` from another socket is not found), and breaks on
// request: refused handshakes, stalls and drops mid-stream, closes. It records every handshake and frame.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";

export interface FramePlan {
  /** A file under test/fixtures/responses-ws. */
  fixture: string;
  /** Send this many frames, then drop the TCP connection (no close frame). */
  dropAfterFrames?: number;
  /** Send this many frames, then go silent with the connection open. */
  stallAfterFrames?: number;
  /** After the frames, close the socket with this code (e.g. after the connection limit error). */
  closeWith?: number;
  /** Wait this long between frames, so a reader can cancel mid-stream. */
  frameDelayMs?: number;
}

export interface ReceivedFrame {
  connection: number;
  frame: Record<string, unknown>;
}

export const responsesWsFixtures = new URL("../fixtures/responses-ws/", import.meta.url);

export function readFrames(fixture: string): string[] {
  return readFileSync(new URL(fixture, responsesWsFixtures), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
}

export class ResponsesWsUpstream {
  readonly handshakes: IncomingHttpHeaders[] = [];
  readonly received: ReceivedFrame[] = [];
  /** Answers the handshake with this status and body instead of upgrading (once each). */
  readonly refusals: Array<{ status: number; headers?: Record<string, string>; body: string }> = [];
  private readonly plans: FramePlan[] = [];
  private defaultPlan: FramePlan = { fixture: "text.jsonl" };
  private responseCount = 0;
  private readonly sockets = new Set<WebSocket>();

  private constructor(
    private readonly server: Server,
    private readonly webSockets: WebSocketServer,
  ) {}

  static async start(): Promise<ResponsesWsUpstream> {
    const server = createServer((_request, response) => {
      response.writeHead(404).end();
    });
    const webSockets = new WebSocketServer({ noServer: true });
    const upstream = new ResponsesWsUpstream(server, webSockets);
    server.on("upgrade", (request, socket, head) => {
      upstream.handshakes.push(request.headers);
      const refusal = upstream.refusals.shift();
      if (refusal !== undefined) {
        const headers = Object.entries({ "content-type": "application/json", ...refusal.headers })
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("");
        socket.end(
          `HTTP/1.1 ${refusal.status} Refused\r\n${headers}content-length: ${Buffer.byteLength(refusal.body)}\r\n\r\n${refusal.body}`,
        );
        return;
      }
      webSockets.handleUpgrade(request, socket, head, (webSocket) => upstream.serve(webSocket));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return upstream;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** The next `response.create`s are answered with these, in order; then with `then`. */
  respondInTurn(plans: FramePlan[], then: FramePlan = { fixture: "text.jsonl" }): void {
    this.plans.splice(0, this.plans.length, ...plans);
    this.defaultPlan = then;
  }

  creates(): ReceivedFrame[] {
    return this.received.filter((received) => received.frame.type === "response.create");
  }

  /** Connections that are open now. */
  get openConnections(): number {
    return this.sockets.size;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.webSockets.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private serve(socket: WebSocket): void {
    const connection = this.handshakes.length;
    const held = new Set<string>();
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    let replaying = Promise.resolve();
    socket.on("message", (data: Buffer) => {
      const frame = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
      this.received.push({ connection, frame });
      if (frame.type !== "response.create") return;
      // One response at a time per connection, as OpenAI's WebSocket mode runs them.
      replaying = replaying.then(() => this.answer(socket, frame, held));
    });
  }

  private async answer(
    socket: WebSocket,
    create: Record<string, unknown>,
    held: Set<string>,
  ): Promise<void> {
    const previous = create.previous_response_id;
    let plan = this.plans.shift() ?? this.defaultPlan;
    if (typeof previous === "string" && !held.has(previous))
      plan = { fixture: "previous-response-not-found.jsonl" };
    else if (create.generate === false && plan.fixture === "text.jsonl")
      plan = { fixture: "warm-up.jsonl" };
    this.responseCount += 1;
    const responseId = `resp_ws_${this.responseCount}`;
    const frames = readFrames(plan.fixture).map((line) =>
      line
        .replaceAll("{{response_id}}", responseId)
        .replaceAll("{{previous_response_id}}", String(previous)),
    );
    for (const [index, frame] of frames.entries()) {
      if (plan.dropAfterFrames === index) {
        socket.terminate();
        return;
      }
      if (plan.stallAfterFrames === index) {
        await new Promise((resolve) => socket.once("close", resolve));
        return;
      }
      if (socket.readyState !== socket.OPEN) return;
      socket.send(frame);
      if (plan.frameDelayMs !== undefined)
        await new Promise((resolve) => setTimeout(resolve, plan.frameDelayMs));
    }
    if (frames.some((frame) => frame.includes('"type":"response.completed"'))) held.add(responseId);
    if (plan.closeWith !== undefined) socket.close(plan.closeWith, "closing");
  }
}
