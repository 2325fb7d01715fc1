// A loopback HTTP server that replays recorded SSE bytes (or any body) for the engine's tests, and
// breaks them on request: random chunk sizes, stalls before headers or mid-body, truncation,
// abrupt socket resets, wrong content types, error statuses. It records every request and whether
// the client hung up before the response finished.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface ReplayResponse {
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  /** A file name under test/fixtures/sse, or the body itself. */
  fixture?: string;
  body?: string | Buffer;
  /** Split the body into chunks of 1..maxChunkBytes bytes, from a seeded generator. */
  randomChunks?: { seed: number; maxChunkBytes: number };
  chunkDelayMs?: number;
  /** Send the headers only after this many milliseconds. */
  headersDelayMs?: number;
  /** Send this many body bytes, then go silent with the connection open. */
  stallAfterBytes?: number;
  /** Send this many body bytes, then end the response cleanly. */
  truncateAfterBytes?: number;
  /** Send this many body bytes, then destroy the socket. */
  destroyAfterBytes?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** Resolves once the exchange is over: true when the client went away before the response ended. */
  closedEarly: Promise<boolean>;
}

export const fixturesDirectory = new URL("../fixtures/sse/", import.meta.url);

export function readFixture(name: string): Buffer {
  return readFileSync(new URL(name, fixturesDirectory));
}

export class ReplayServer {
  readonly requests: RecordedRequest[] = [];
  /** TCP connections accepted, to tell reused keep-alive connections from new ones. */
  connectionCount = 0;
  models: unknown[] = [{ id: "replay-model", object: "model", owned_by: "spark-tests" }];
  /** How GET /v1/models answers (health probes): its status, after an optional delay. */
  modelsStatus = 200;
  modelsDelayMs = 0;
  private response: ReplayResponse = { fixture: "openai-text.sse" };
  private readonly queued: ReplayResponse[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<ReplayServer> {
    const server = createServer();
    const replay = new ReplayServer(server);
    server.on("connection", (socket) => {
      replay.connectionCount += 1;
      replay.sockets.add(socket);
      socket.on("close", () => replay.sockets.delete(socket));
    });
    server.on("request", (request, response) => void replay.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return replay;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** What POST /v1/chat/completions (and /v1/responses) answers from now on. */
  respondWith(response: ReplayResponse): void {
    this.response = response;
    this.queued.length = 0;
  }

  /** Answers the next requests with these, in order, then with `then` (a fault, then recovery). */
  respondInTurn(responses: ReplayResponse[], then: ReplayResponse): void {
    this.response = then;
    this.queued.splice(0, this.queued.length, ...responses);
  }

  modelsRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url === "/v1/models");
  }

  chatRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url.endsWith("/chat/completions"));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let closedEarly = (_value: boolean): void => undefined;
    this.requests.push({
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      body: Buffer.concat(chunks).toString("utf8"),
      closedEarly: new Promise((resolve) => (closedEarly = resolve)),
    });
    response.on("close", () => closedEarly(!response.writableFinished));
    if (request.method === "GET" && request.url === "/v1/models") {
      if (this.modelsDelayMs > 0) await sleepUnlessClosed(this.modelsDelayMs, response);
      if (response.destroyed) return;
      response.writeHead(this.modelsStatus, { "content-type": "application/json" });
      response.end(JSON.stringify({ object: "list", data: this.models }));
      return;
    }
    const answered = request.url === "/v1/chat/completions" || request.url === "/v1/responses";
    if (request.method !== "POST" || !answered) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: `No route ${request.url}`, type: "not_found" } }),
      );
      return;
    }
    await this.replay(this.queued.shift() ?? this.response, response);
  }

  private async replay(plan: ReplayResponse, response: ServerResponse): Promise<void> {
    const body =
      plan.fixture === undefined ? Buffer.from(plan.body ?? "") : readFixture(plan.fixture);
    if (plan.headersDelayMs !== undefined) await sleepUnlessClosed(plan.headersDelayMs, response);
    if (response.destroyed) return;
    response.writeHead(plan.status ?? 200, {
      "content-type": plan.contentType ?? "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...plan.headers,
    });
    response.flushHeaders();
    const limit = Math.min(
      body.length,
      plan.stallAfterBytes ?? Infinity,
      plan.truncateAfterBytes ?? Infinity,
      plan.destroyAfterBytes ?? Infinity,
    );
    const random = seededRandom(plan.randomChunks?.seed ?? 1);
    let offset = 0;
    while (offset < limit && !response.destroyed) {
      const size =
        plan.randomChunks === undefined
          ? limit
          : 1 + Math.floor(random() * plan.randomChunks.maxChunkBytes);
      const end = Math.min(limit, offset + size);
      // Waiting for each write to flush keeps a later destroy() from discarding it.
      await new Promise((resolve) => response.write(body.subarray(offset, end), resolve));
      offset = end;
      // Yield between writes so small chunks leave as separate socket writes, not one coalesced one.
      if (offset < limit && (plan.chunkDelayMs !== undefined || plan.randomChunks !== undefined)) {
        if (plan.chunkDelayMs === undefined) await new Promise((resolve) => setImmediate(resolve));
        else await sleep(plan.chunkDelayMs);
      }
    }
    if (response.destroyed) return;
    if (plan.stallAfterBytes !== undefined && plan.stallAfterBytes < body.length) return; // hold it open
    if (plan.destroyAfterBytes !== undefined && plan.destroyAfterBytes < body.length) {
      response.socket?.destroy();
      return;
    }
    response.end();
  }
}

/** Waits, but stops waiting when the client hangs up, so no timer outlives its test. */
async function sleepUnlessClosed(milliseconds: number, response: ServerResponse): Promise<void> {
  const controller = new AbortController();
  const onClose = (): void => controller.abort();
  response.on("close", onClose);
  await sleep(milliseconds, undefined, { signal: controller.signal }).catch(() => undefined);
  response.off("close", onClose);
}

/** mulberry32: small, fast and the same on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
