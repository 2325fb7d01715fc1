// A raw `ws` client for Responses WebSocket mode that runs one turn at a time and timestamps what
// arrives: the least client work that still parses every event, so the server's cost shows.
import WebSocket from "ws";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { applyFinalResponse, emptyTurnRecord, type TurnRecord } from "./turn-record.ts";

export interface WsTurnOptions {
  /** Tokens a delta carries; default 1 per delta. */
  countTokens?: (delta: string) => number;
  /** Called as each delta arrives (the interrupt scenario cancels from here). */
  onDelta?: (record: TurnRecord) => void;
  timeoutMs?: number;
}

interface PendingTurn {
  record: TurnRecord;
  options: WsTurnOptions;
  resolve: (record: TurnRecord) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

export class WsTurnClient {
  private pending: PendingTurn | undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on("message", (data: Buffer) => this.onMessage(data));
    socket.on("close", () =>
      this.fail(new SparkError("network_error", "The WebSocket closed during a turn.")),
    );
    socket.on("error", (error) => this.fail(error));
  }

  static async connect(baseUrl: string, signal?: AbortSignal): Promise<WsTurnClient> {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/v1/responses`, {
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        socket.terminate();
        reject(SparkError.from(signal?.reason, "cancelled"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      socket.once("open", () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      socket.once("error", reject);
    });
    return new WsTurnClient(socket);
  }

  /** Sends `response.create` with `body` and resolves with the turn once its final event arrives. */
  runTurn(body: Record<string, unknown>, options: WsTurnOptions = {}): Promise<TurnRecord> {
    if (this.pending !== undefined) {
      return Promise.reject(new SparkError("engine_busy", "A turn is already running."));
    }
    const payload = JSON.stringify({ type: "response.create", ...body });
    return new Promise<TurnRecord>((resolve, reject) => {
      const record = emptyTurnRecord(performance.now(), Buffer.byteLength(payload));
      const timer = setTimeout(
        () => this.fail(new SparkError("upstream_timeout", "The turn did not finish in time.")),
        options.timeoutMs ?? 600_000,
      );
      this.pending = { record, options, resolve, reject, timer };
      this.socket.send(payload);
    });
  }

  /** Sends any client event (response.cancel, …) and returns when it was handed to the socket. */
  send(event: Record<string, unknown>): number {
    this.socket.send(JSON.stringify(event));
    return performance.now();
  }

  close(): void {
    this.socket.close();
  }

  private onMessage(data: Buffer): void {
    const at = performance.now();
    const pending = this.pending;
    if (pending === undefined) return;
    const event = JSON.parse(data.toString("utf8")) as {
      type: string;
      delta?: string;
      response?: unknown;
      error?: { message?: string };
      message?: string;
    };
    const { record } = pending;
    switch (event.type) {
      case "response.output_text.delta": {
        const delta = event.delta ?? "";
        record.firstDeltaAt ??= at;
        record.lastDeltaAt = at;
        record.deltaCount += 1;
        record.text += delta;
        record.arrivals.push({ at, tokens: pending.options.countTokens?.(delta) ?? 1 });
        pending.options.onDelta?.(record);
        return;
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        record.endedAt = at;
        applyFinalResponse(record, event.response);
        this.settle(pending, undefined);
        return;
      case "error":
        this.settle(
          pending,
          new SparkError(
            "upstream_error",
            `Server error event: ${event.error?.message ?? event.message ?? JSON.stringify(event)}`,
          ),
        );
        return;
      default:
        return;
    }
  }

  private fail(error: unknown): void {
    if (this.pending !== undefined) this.settle(this.pending, error);
  }

  private settle(pending: PendingTurn, error: unknown): void {
    this.pending = undefined;
    clearTimeout(pending.timer);
    if (error === undefined) pending.resolve(pending.record);
    else pending.reject(error);
  }
}
