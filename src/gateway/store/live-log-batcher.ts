// The event logs of this replica's responses in flight, written to a shared store in batches: the
// events every response produced during one turn of the event loop go out in one store call, and
// only then are they handed to the clients (write-ahead). A client therefore never sees an event
// the store does not hold, so another replica that resumes the response numbers on without a gap
// or a repeat, even when this process is killed right after sending.
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import { isFinalResponseEvent } from "../wire/tick-corker.ts";
import type { ContinuableTurn, GatewayStore, LiveAppendOutcome } from "./gateway-store.ts";

export type Deliver = (event: ResponseServerEvent, json: string | undefined) => void;

export interface LiveLogOptions {
  id: string;
  owner: string;
  /** Written with the first batch, so another replica can continue the response. */
  turn: ContinuableTurn;
  /** The request's fingerprint: a retry of the same request finds the response by it. */
  request?: string;
  /** The log already exists (a response this replica took over): the turn is not written again. */
  existing?: boolean;
  deliver: Deliver;
  /** Another replica took the response over: stop generating it here. */
  onSuperseded: () => void;
}

interface Pending {
  event: ResponseServerEvent;
  /** The event's wire text: the one written to the log, and sent. */
  logged: string;
}

export class LiveLog {
  pending: Pending[] = [];
  turnWritten: boolean;
  /** The store failed or lost the log: events go straight to the client, unlogged. */
  broken = false;
  done = false;
  private frozen = false;

  constructor(
    readonly options: LiveLogOptions,
    private readonly batcher: LiveLogBatcher,
  ) {
    this.turnWritten = options.existing === true;
  }

  /** Handed over at a drain's end: what was generated so far is logged, nothing after it. */
  freeze(): void {
    this.frozen = true;
  }

  append(event: ResponseServerEvent, json: string | undefined): void {
    if (this.frozen) return;
    if (this.broken) {
      this.options.deliver(event, json);
      return;
    }
    if (isFinalResponseEvent(event.type)) this.done = true;
    this.pending.push({ event, logged: json ?? JSON.stringify(event) });
    this.batcher.schedule(this);
  }
}

export class LiveLogBatcher {
  private waiting: LiveLog[] = [];
  private scheduled = false;
  /** Appends sent and not yet answered, so a shutdown can wait for them. */
  private readonly unanswered = new Set<Promise<unknown>>();

  constructor(
    private readonly store: GatewayStore,
    /** Told once per failure, with what was lost. */
    private readonly onFailure: (error: unknown) => void,
  ) {}

  open(options: LiveLogOptions): LiveLog {
    return new LiveLog(options, this);
  }

  schedule(log: LiveLog): void {
    if (log.pending.length === 1) this.waiting.push(log);
    if (this.scheduled) return;
    this.scheduled = true;
    // After every callback of this loop turn (each one's deltas are flushed at its tick's end):
    // one store call carries what all responses produced meanwhile.
    setImmediate(() => this.flush());
  }

  /** Writes (and delivers) what is waiting now rather than at the end of this loop turn. */
  flushNow(): void {
    if (this.scheduled) this.flush();
  }

  /** Writes what is waiting now and resolves once the store has answered every append. */
  async settled(): Promise<void> {
    this.flushNow();
    await Promise.allSettled([...this.unanswered]);
  }

  /** Writes every waiting batch, then delivers it (the store has the bytes first). */
  flush(): void {
    this.scheduled = false;
    const logs = this.waiting;
    this.waiting = [];
    const batches = logs.map((log) => {
      const pending = log.pending;
      log.pending = [];
      return { log, pending };
    });
    const written = batches.filter(({ log }) => !log.broken);
    let outcomes: Promise<LiveAppendOutcome[]> = Promise.resolve([]);
    if (written.length > 0) {
      outcomes = this.store.appendLive(
        written.map(({ log, pending }) => {
          const turn = log.turnWritten ? undefined : log.options.turn;
          log.turnWritten = true;
          return {
            id: log.options.id,
            owner: log.options.owner,
            ...(turn === undefined ? {} : { turn }),
            ...(turn === undefined || log.options.request === undefined
              ? {}
              : { request: log.options.request }),
            events: pending.map((entry) => entry.logged),
            done: log.done,
          };
        }),
      );
    }
    // The logged text goes out as the event's wire text too (deltas included, which transports
    // otherwise write themselves): each event is serialized once.
    for (const { log, pending } of batches)
      for (const entry of pending) log.options.deliver(entry.event, entry.logged);
    const answered = outcomes.then(
      (results) =>
        results.forEach((outcome, index) => {
          const log = written[index]?.log;
          if (log === undefined || outcome === "ok") return;
          log.broken = true;
          if (outcome === "superseded") log.options.onSuperseded();
        }),
      (error: unknown) => {
        for (const { log } of written) log.broken = true;
        this.onFailure(error);
      },
    );
    this.unanswered.add(answered);
    void answered.finally(() => this.unanswered.delete(answered));
  }
}
