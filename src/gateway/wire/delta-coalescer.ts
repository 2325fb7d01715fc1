// Backpressure between a response and one client connection: events go straight out while the
// connection keeps up; once its unsent bytes pass the soft limit, events wait and consecutive
// deltas merge into one (carrying the last merged sequence_number); past the hard limit the
// client is hopeless and is dropped with a reason, so the server never buffers without bound.
// What one connection holds is thus at most the hard limit plus one response's closing events.
import type { ResponseDeltaEvent } from "../../protocol/responses-events.ts";
import type { TransportEvent } from "./event-json.ts";

type ResponseServerEvent = TransportEvent;

export interface CoalescerTransport {
  /** Bytes accepted by the connection but not yet written to the network. */
  bufferedBytes(): number;
  /**
   * `streamId`: the WebSocket lane (`stream_id`) the event belongs to, carried beside the event
   * rather than copied into it, so tagging costs nothing until the bytes are written.
   */
  write(event: ResponseServerEvent, json: string | undefined, streamId: string | undefined): void;
  /** The client cannot keep up: close it, saying why. */
  drop(reason: string): void;
}

export interface CoalescerLimits {
  softBytes: number;
  hardBytes: number;
  /** How often a backlog is retried while the connection is full. */
  pollIntervalMs?: number;
  /** Called each time a delta is merged into a waiting one (for metrics). */
  onMerged?: () => void;
}

interface Waiting {
  event: ResponseServerEvent;
  json: string | undefined;
  streamId: string | undefined;
  bytes: number;
}

const DELTA_OVERHEAD_BYTES = 160;

export class DeltaCoalescer {
  private readonly waiting: Waiting[] = [];
  private waitingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private drainWaiters: Array<() => void> = [];

  constructor(
    private readonly transport: CoalescerTransport,
    private readonly limits: CoalescerLimits,
  ) {}

  /** `json`: the event's wire text when it was already written (never for deltas, which merge). */
  push(event: ResponseServerEvent, json?: string, streamId?: string): void {
    if (this.stopped) return;
    if (this.waiting.length === 0 && this.transport.bufferedBytes() < this.limits.softBytes) {
      this.transport.write(event, json, streamId);
      return;
    }
    if (!this.mergeIntoLast(event, streamId)) {
      const text = isDelta(event) ? undefined : (json ?? JSON.stringify(event));
      const bytes = text === undefined ? deltaBytes(event) : text.length;
      this.waiting.push({ event, json: text, streamId, bytes });
      this.waitingBytes += bytes;
    }
    // Only deltas can arrive without bound; the few other events of a response are bounded by its
    // size (the done events repeat its text), so they never count as a client falling behind.
    const unsent = this.transport.bufferedBytes() + this.waitingBytes;
    if (isDelta(event) && unsent > this.limits.hardBytes) {
      this.stop();
      this.transport.drop(
        `client too slow: ${unsent} bytes unsent (limit ${this.limits.hardBytes}); reconnect and resume`,
      );
      return;
    }
    this.timer ??= setTimeout(() => this.flush(), this.limits.pollIntervalMs ?? 5);
  }

  /** Stops sending (the connection is closing); what waits is dropped, the response's replay keeps it. */
  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
    this.waitingBytes = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.resolveDrainWaiters();
  }

  /** Resolves once everything pushed so far has been handed to the transport (or dropped). */
  drained(): Promise<void> {
    if (this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  get backlogBytes(): number {
    return this.waitingBytes;
  }

  private flush(): void {
    this.timer = undefined;
    if (this.stopped) return;
    while (this.waiting.length > 0 && this.transport.bufferedBytes() < this.limits.softBytes) {
      const next = this.waiting.shift();
      if (next === undefined) break;
      this.waitingBytes -= next.bytes;
      this.transport.write(next.event, next.json, next.streamId);
    }
    if (this.waiting.length > 0)
      this.timer = setTimeout(() => this.flush(), this.limits.pollIntervalMs ?? 5);
    else this.resolveDrainWaiters();
  }

  private resolveDrainWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private mergeIntoLast(event: ResponseServerEvent, streamId: string | undefined): boolean {
    const last = this.waiting.at(-1);
    if (last === undefined || last.streamId !== streamId) return false;
    if (!isDelta(event) || !isDelta(last.event)) return false;
    const merged = mergeDeltas(last.event, event);
    if (merged === undefined) return false;
    last.event = merged;
    last.bytes += event.delta.length;
    this.waitingBytes += event.delta.length;
    this.limits.onMerged?.();
    return true;
  }
}

export function isDelta(event: ResponseServerEvent): event is ResponseDeltaEvent {
  return (
    event.type === "response.output_text.delta" ||
    event.type === "response.reasoning_text.delta" ||
    event.type === "response.function_call_arguments.delta"
  );
}

/** One delta standing for two consecutive ones of the same item, or undefined when they differ. */
export function mergeDeltas(
  first: ResponseDeltaEvent,
  second: ResponseDeltaEvent,
): ResponseDeltaEvent | undefined {
  if (first.type !== second.type || first.item_id !== second.item_id) return undefined;
  return { ...second, delta: first.delta + second.delta };
}

function deltaBytes(event: ResponseServerEvent): number {
  return isDelta(event) ? event.delta.length + DELTA_OVERHEAD_BYTES : DELTA_OVERHEAD_BYTES;
}
