// Reaches the model through a `spark serve` gateway: Responses over a kept-open WebSocket,
// chaining turns with previous_response_id so each sends only what is new; HTTP/SSE when no
// WebSocket opens within the connect timeout (2 s by default).
import type WebSocket from "ws";
import type { EngineEvent, EngineRequest } from "../../engines/engine.ts";
import { StreamClock } from "../../engines/stream-clock.ts";
import { refuseCompletion, validateEngineRequest } from "../../engines/validate-request.ts";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { gatewayUrls, type GatewayUrls } from "./gateway-urls.ts";
import { streamOverHttp } from "./http-sse-transport.ts";
import type { ModelClient, ModelClientStreamOptions } from "./model-client.ts";
import { buildResponsesBody, type ResponseChain } from "./responses-request-body.ts";
import { ResponsesEventMapper } from "./responses-event-mapper.ts";
import { openWebSocket, streamOverWebSocket, type TransportItem } from "./websocket-transport.ts";

export const DEFAULT_CONNECT_TIMEOUT_MS = 2000;

export interface GatewayModelClientOptions {
  /** ws://host:port (http:// works too; /v1 is optional). */
  url: string;
  /** Sent as `Authorization: Bearer <key>` when the gateway has [serve] api_keys. */
  apiKey?: string;
  connectTimeoutMs?: number;
}

export class GatewayModelClient implements ModelClient {
  private readonly urls: GatewayUrls;
  private readonly headers: Record<string, string>;
  private readonly connectTimeoutMs: number;
  private socket: WebSocket | undefined;
  private transport: "ws" | "http" = "ws";
  private chain: ResponseChain | undefined;
  /** Settles when the response in flight has ended: one response at a time per connection. */
  private idle: Promise<void> = Promise.resolve();
  private closed = false;
  /** Responses requested, and how many of them sent only new input (previous_response_id). */
  readonly stats = { responses: 0, chained: 0 };

  constructor(options: GatewayModelClientOptions) {
    this.urls = gatewayUrls(options.url);
    this.headers =
      options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` };
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  get kind(): string {
    return this.transport === "ws" ? "gateway-ws" : "gateway-http";
  }

  async *stream(
    request: EngineRequest,
    options: ModelClientStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    const clock = new StreamClock();
    const mapper = new ResponsesEventMapper(clock);
    const rejection = this.closed
      ? new SparkError("engine_disposed", "The gateway client was closed.")
      : (refuseCompletion("gateway client", request) ?? validateEngineRequest(request));
    if (rejection !== undefined) {
      yield* mapper.fail(rejection);
      return;
    }
    const previous = this.idle;
    let release = (): void => {};
    this.idle = new Promise((resolve) => (release = resolve));
    await previous;
    try {
      const { body, conversation } = buildResponsesBody(request, this.chain);
      this.chain = undefined;
      this.stats.responses += 1;
      if (body.previous_response_id != null) this.stats.chained += 1;
      const items = await this.open(body, options.signal);
      let routeTold = false;
      clock.markWorkStarted();
      // The consumer may stop iterating at `finish`, so everything after it happens before it.
      const remember = (): void => {
        if (mapper.completed && mapper.responseId !== undefined) {
          this.chain = {
            responseId: mapper.responseId,
            messages: [...conversation, mapper.reply()],
          };
        }
      };
      for await (const item of items) {
        const events = "error" in item ? mapper.fail(item.error) : mapper.map(item.event);
        if (mapper.route !== undefined && !routeTold) {
          routeTold = true;
          const [model = mapper.route.route] = mapper.route.models;
          options.onRoute?.({ model, reason: mapper.route.reason });
        }
        if (mapper.finished) remember();
        yield* events;
        if (mapper.finished) return;
      }
      yield* options.signal?.aborted === true
        ? mapper.cancel()
        : mapper.fail(
            new SparkError("network_error", "The gateway ended the response without finishing it."),
          );
    } finally {
      // Let go before the response ended (an abort that outlived its grace period): the gateway
      // would refuse the next response.create on this socket, so the next stream opens a new one.
      if (!mapper.responseEnded) {
        this.socket?.terminate();
        this.socket = undefined;
      }
      release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.socket?.close(1000, "client done");
    this.socket = undefined;
  }

  /** The WebSocket when one is open or opens in time; otherwise HTTP/SSE from now on. */
  private async open(
    body: ResponseCreateBody,
    signal: AbortSignal | undefined,
  ): Promise<AsyncIterable<TransportItem>> {
    if (this.transport === "ws") {
      if (this.socket === undefined || this.socket.readyState !== this.socket.OPEN) {
        this.socket = await openWebSocket(
          this.urls.webSocket,
          this.headers,
          this.connectTimeoutMs,
        ).catch(() => undefined);
      }
      if (this.socket !== undefined) return streamOverWebSocket(this.socket, body, signal);
      this.transport = "http";
    }
    return streamOverHttp(this.urls.http, this.headers, body, signal);
  }
}
