// One HTTP request dispatched on an undici pool, seen as an async stream of what happened to it:
// sent, response headers, body chunks, end or error. Dispatching with our own handler (rather than
// `request()`) tells us when the request got its connection, which is where queueing ends, and
// lets an abort destroy the upstream body at once. Backpressure pauses the socket.
import { errors, type Dispatcher } from "undici";

export type UpstreamEvent =
  | { type: "request-sent" }
  | {
      type: "response-start";
      status: number;
      headers: Record<string, string | string[] | undefined>;
    }
  | { type: "data"; chunk: Buffer }
  | { type: "end" }
  | { type: "error"; error: Error };

/** Chunks buffered before the socket is paused; SSE chunks are small, so this is rarely reached. */
const highWaterMark = 64;

export class UpstreamRequest implements AsyncIterableIterator<UpstreamEvent> {
  private readonly queue: UpstreamEvent[] = [];
  private wake: (() => void) | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private abortReason: Error | undefined;
  private finished = false;
  /**
   * The first-byte timeout on a native timer: undici's own `headersTimeout` runs on its 499 ms
   * tick clock (FastTimer, lib/util/timers.js), so a 400 ms timeout fired after about a second and
   * a failover waited twice as long as configured. Undici's stays set, as a backstop. This one
   * counts from when the request got its connection, so the upload of the body is included
   * (undici's skips a socket still writing); a request body takes milliseconds against seconds.
   */
  private headersTimer: NodeJS.Timeout | undefined;
  private readonly headersTimeoutMs: number | undefined;

  constructor(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions) {
    this.headersTimeoutMs = options.headersTimeout ?? undefined;
    try {
      dispatcher.dispatch(options, this.handler());
    } catch (error) {
      this.push({
        type: "error",
        error: error instanceof Error ? error : new Error(String(error)),
      });
    }
  }

  /** Stops the request: a queued one is never sent, a running one has its socket destroyed. */
  abort(reason: Error): void {
    if (this.abortReason !== undefined) return;
    this.abortReason = reason;
    clearTimeout(this.headersTimer);
    this.controller?.abort(reason);
    if (!this.finished) this.push({ type: "error", error: reason });
    this.finished = true;
  }

  get settled(): boolean {
    return this.finished;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<UpstreamEvent> {
    return this;
  }

  async next(): Promise<IteratorResult<UpstreamEvent>> {
    for (;;) {
      const event = this.queue.shift();
      if (event !== undefined) {
        if (this.controller?.paused === true && this.queue.length < highWaterMark / 2)
          this.controller.resume();
        return { done: false, value: event };
      }
      if (this.finished) return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async return(): Promise<IteratorResult<UpstreamEvent>> {
    if (!this.finished) this.abort(new Error("The stream's reader stopped reading."));
    return { done: true, value: undefined };
  }

  private push(event: UpstreamEvent): void {
    if (this.finished) return;
    this.queue.push(event);
    if (event.type === "end" || event.type === "error") {
      this.finished = true;
      clearTimeout(this.headersTimer);
    }
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private handler(): Dispatcher.DispatchHandler {
    return {
      onRequestStart: (controller) => {
        this.controller = controller;
        // Aborted while waiting for a connection: never send it.
        if (this.abortReason !== undefined) {
          controller.abort(this.abortReason);
          return;
        }
        this.push({ type: "request-sent" });
        const timeoutMs = this.headersTimeoutMs;
        if (timeoutMs !== undefined && timeoutMs > 0)
          this.headersTimer = setTimeout(
            () => this.abort(new errors.HeadersTimeoutError()),
            timeoutMs,
          ).unref();
      },
      onResponseStart: (_controller, status, headers) => {
        if (status < 200) return; // 1xx informational responses precede the real one
        clearTimeout(this.headersTimer);
        this.push({ type: "response-start", status, headers });
      },
      onResponseData: (controller, chunk) => {
        this.push({ type: "data", chunk });
        if (this.queue.length >= highWaterMark) controller.pause();
      },
      onResponseEnd: () => {
        this.push({ type: "end" });
      },
      onResponseError: (_controller, error) => {
        this.push({ type: "error", error });
      },
    };
  }
}
