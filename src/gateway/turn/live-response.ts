// A response generating (or just finished) on the WebSocket path: its stop control, its replay
// log, and the one connection currently receiving its events. The connection can go away and
// another can take over (resume) while generation goes on.
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import type { ResponseCreateBody, ResponseInput } from "../../protocol/responses-requests.ts";
import { isDelta } from "../wire/delta-coalescer.ts";
import { ReplayBuffer } from "./replay-buffer.ts";
import type { EmitEvent } from "./response-event-writer.ts";
import type { ResponseRunResult, StopReason } from "./response-runner.ts";
import type { LiveLog } from "../store/live-log-batcher.ts";

/** Receives a response's events with their wire text (absent for deltas, written per transport). */
export type EventSink = EmitEvent;

export class LiveResponse {
  readonly replay: ReplayBuffer;
  private readonly controller = new AbortController();
  private sink: EventSink | undefined;
  private resolveFinished: (result: ResponseRunResult | undefined) => void = () => {};
  /** Resolves when the run ends (undefined when it never started, e.g. over the concurrency limit). */
  readonly finished: Promise<ResponseRunResult | undefined>;
  done = false;
  /** Input waiting to continue the conversation once this response stops (response.steer). */
  steerInput: ResponseInput | undefined;
  /** The ids the steers queued on it were accepted under, in order (OpenAI caps their number). */
  readonly steerIds: string[] = [];
  /** It streamed a client-owned tool call: it must complete, its calls need the client's output. */
  madeToolCalls = false;
  /** With a shared store: its events are logged there before they reach the connection. */
  private log: LiveLog | undefined;
  /** Another replica took it over (this one's lease had lapsed): that one stores the result. */
  superseded = false;

  constructor(
    readonly id: string,
    readonly ownerKey: string | undefined,
    /** The create request, reused for the chained response a steer starts. */
    readonly body: ResponseCreateBody,
    replayBytes: number,
  ) {
    this.replay = new ReplayBuffer(replayBytes);
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get attached(): boolean {
    return this.sink !== undefined;
  }

  emit(event: ResponseServerEvent, json?: string): void {
    if (
      event.type === "response.output_item.added" &&
      (event.item.type === "function_call" || event.item.type === "custom_tool_call")
    ) {
      this.madeToolCalls = true;
    }
    // Written once, here: the replay log counts its bytes and the connection sends the same text.
    const text = json ?? (isDelta(event) ? undefined : JSON.stringify(event));
    this.replay.append(event, text);
    if (this.log === undefined) this.sink?.(event, text);
    else this.log.append(event, text);
  }

  /** Logs its events in the shared store first; they reach the connection once written. */
  logTo(log: LiveLog): void {
    this.log = log;
  }

  /** Hands a logged event to the connection currently attached. */
  deliver(event: ResponseServerEvent, json: string | undefined): void {
    this.sink?.(event, json);
  }

  /** Another replica continues it: stop here, and leave the result to that one. */
  supersede(): void {
    this.superseded = true;
    this.stop("disconnected");
  }

  /** A drain ends here: its log is frozen as it is (no `incomplete` end is logged or sent), the
   * engine stops, and nothing is stored; another replica resumes and continues it. */
  handOver(): void {
    this.superseded = true;
    this.log?.freeze();
    this.sink = undefined;
    this.stop("disconnected");
  }

  /** Sends future events to `sink`, replacing any earlier connection. */
  attach(sink: EventSink): void {
    this.sink = sink;
  }

  detach(sink?: EventSink): void {
    if (sink === undefined || this.sink === sink) this.sink = undefined;
  }

  stop(reason: StopReason): void {
    if (!this.done && !this.controller.signal.aborted) this.controller.abort(reason);
  }

  finish(result: ResponseRunResult | undefined): void {
    this.done = true;
    this.resolveFinished(result);
  }
}
