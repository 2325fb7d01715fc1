// One WebSocket to an upstream's /responses in OpenAI's WebSocket mode: the handshake (key and
// beta header, a refused one mapped like an HTTP error), one response at a time read frame by
// frame with timeouts, the chain the upstream holds for it, and its age for the lifetime limit.
import type { IncomingMessage } from "node:http";
import WebSocket from "ws";
import { SparkError } from "../../../protocol/spark-error.ts";
import { mapHttpError, mapTransportError, type UpstreamErrorContext } from "../map-http-error.ts";
import type { ResponseChain } from "./response-chain.ts";

export interface ResponsesSocketOptions {
  url: string;
  headers: Record<string, string>;
  connectMs: number;
  /** The largest frame accepted; a larger one closes the socket (1009). */
  maxFrameBytes: number;
  errorContext: UpstreamErrorContext;
}

export type SocketMessage =
  | { type: "frame"; text: string }
  | { type: "closed"; error: SparkError }
  | { type: "timeout" }
  | { type: "aborted" };

/** A refused handshake's body is read for its message; past this size the rest is not needed. */
const handshakeBodyLimit = 64 * 1024;

export class ResponsesSocket {
  readonly openedAt = performance.now();
  /** Resolves once the handshake succeeded; rejects with the mapped error otherwise. */
  readonly ready: Promise<void>;
  chain: ResponseChain | undefined;
  busy = false;
  /** No further response may start here (the upstream announced its limit, or a read failed). */
  retiring = false;
  private closedWith: SparkError | undefined;
  private readonly inbox: string[] = [];
  private wake: (() => void) | undefined;
  private readonly closeListeners: Array<() => void> = [];

  constructor(private readonly options: ResponsesSocketOptions) {
    const socket = new WebSocket(options.url, {
      headers: options.headers,
      handshakeTimeout: options.connectMs,
      maxPayload: options.maxFrameBytes,
      perMessageDeflate: false,
    });
    this.socket = socket;
    this.ready = new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("unexpected-response", (request, response) => {
        void readRefusal(response).then((body) => {
          request.destroy();
          reject(
            this.fail(
              mapHttpError(
                { status: response.statusCode ?? 502, headers: response.headers, body },
                options.errorContext,
              ),
            ),
          );
        });
      });
      socket.on("error", (error) => reject(this.fail(connectError(error, options))));
    });
    // Awaited by whoever acquires the socket; this only keeps an unawaited failure quiet.
    this.ready.catch(() => undefined);
    socket.on("message", (data: WebSocket.RawData) => {
      this.inbox.push(Buffer.isBuffer(data) ? data.toString("utf8") : rawText(data));
      this.wakeReader();
    });
    socket.on("close", (code: number, reason: Buffer) => {
      const detail = reason.length > 0 ? ` ${reason.toString("utf8")}` : "";
      this.fail(
        new SparkError(
          "network_error",
          `The WebSocket to ${options.errorContext.baseUrl} closed (${code}${detail}).`,
          { retryable: true },
        ),
      );
    });
  }

  private readonly socket: WebSocket;

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** Usable for a new response: open (or opening), not retiring, younger than `lifetimeMs`. */
  usable(lifetimeMs: number): boolean {
    return !this.closed && !this.retiring && performance.now() - this.openedAt < lifetimeMs;
  }

  send(event: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(event));
  }

  /** Frames that arrived while no response was running are not for any reader. */
  discardPending(): string[] {
    return this.inbox.splice(0, this.inbox.length);
  }

  /** The next frame, or why there is none: closed, nothing for `timeoutMs`, or aborted. */
  async next(timeoutMs: number, signal?: AbortSignal): Promise<SocketMessage> {
    for (;;) {
      const text = this.inbox.shift();
      if (text !== undefined) return { type: "frame", text };
      if (this.closedWith !== undefined) return { type: "closed", error: this.closedWith };
      if (signal?.aborted === true) return { type: "aborted" };
      const waited = await new Promise<"woken" | "timeout" | "aborted">((resolve) => {
        const timer = setTimeout(() => finish("timeout"), timeoutMs);
        const onAbort = (): void => finish("aborted");
        const finish = (result: "woken" | "timeout" | "aborted"): void => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.wake = undefined;
          resolve(result);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        this.wake = () => finish("woken");
      });
      if (waited !== "woken") return { type: waited };
    }
  }

  onClose(listener: () => void): void {
    if (this.closed) listener();
    else this.closeListeners.push(listener);
  }

  close(code = 1000, reason = "done"): void {
    this.retiring = true;
    if (this.socket.readyState === WebSocket.CONNECTING) this.socket.terminate();
    else if (this.socket.readyState === WebSocket.OPEN) this.socket.close(code, reason);
    // A peer that never answers the close must not hold the socket open.
    setTimeout(() => this.socket.terminate(), 2_000).unref();
  }

  /** Records the first failure, wakes the reader and the close listeners; returns the error. */
  private fail(error: SparkError): SparkError {
    if (this.closedWith !== undefined) return this.closedWith;
    this.closedWith = error;
    this.retiring = true;
    this.wakeReader();
    for (const listener of this.closeListeners.splice(0)) listener();
    return error;
  }

  private wakeReader(): void {
    this.wake?.();
  }
}

function connectError(error: Error, options: ResponsesSocketOptions): SparkError {
  if (/handshake has timed out/i.test(error.message)) {
    return new SparkError(
      "upstream_timeout",
      `Could not open a WebSocket to ${options.errorContext.baseUrl} within ${options.connectMs} ms.`,
      { retryable: true, cause: error },
    );
  }
  return mapTransportError(error, options.errorContext);
}

async function readRefusal(response: IncomingMessage): Promise<string> {
  let body = "";
  try {
    for await (const chunk of response) {
      body += (chunk as Buffer).toString("utf8");
      if (body.length >= handshakeBodyLimit) break;
    }
  } catch {
    // The body only adds detail to the message.
  }
  return body;
}

function rawText(data: ArrayBuffer | Buffer[]): string {
  return Array.isArray(data)
    ? Buffer.concat(data).toString("utf8")
    : Buffer.from(data).toString("utf8");
}
