// A session's numbered event stream: stamps each event with the next sequence number and keeps the
// latest ones, so a client that reconnects gets exactly what it missed (or a clear replay_gap).
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import type { SessionEvent, SessionEventNotification } from "../protocol/agent/session-events.ts";

/** Enough for a long turn's deltas; a client further behind re-attaches and gets the history. */
export const DEFAULT_REPLAY_EVENTS = 10_000;

export class SessionEventBuffer {
  private nextSequence: number;
  private readonly entries: SessionEventNotification[] = [];
  /** Index of the oldest kept entry: dropping from the front without shifting the array. */
  private start = 0;

  constructor(
    private readonly sessionId: string,
    private readonly capacity = DEFAULT_REPLAY_EVENTS,
    /** The sequence before the first event: 0, or for a session resumed from its log the last
     * one a reconnecting client saw, so its new events are not taken for ones it already has. */
    readonly firstSequenceAfter = 0,
  ) {
    this.nextSequence = firstSequenceAfter + 1;
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError(`The replay capacity must be a positive whole number, got ${capacity}.`);
  }

  /** The last sequence number given out (0 before the first event). */
  get lastSequence(): number {
    return this.nextSequence - 1;
  }

  /** Numbers and keeps the event; returns the notification to send. */
  append(event: SessionEvent): SessionEventNotification {
    const notification = { sessionId: this.sessionId, sequence: this.nextSequence++, event };
    this.entries.push(notification);
    if (this.entries.length - this.start > this.capacity) {
      this.start += 1;
      // Compact once the dropped prefix is as large as what is kept: amortised O(1) per event.
      if (this.start >= this.capacity) {
        this.entries.splice(0, this.start);
        this.start = 0;
      }
    }
    return notification;
  }

  /** The events after `lastSequence`, in order; a replay_gap error when some are no longer kept. */
  after(lastSequence: number): SessionEventNotification[] {
    if (lastSequence > this.lastSequence) {
      throw new AgentProtocolError(
        "replay_gap",
        `lastSequence ${lastSequence} is ahead of this session (its last event is ${this.lastSequence}); ` +
          "attach again without lastSequence.",
      );
    }
    const oldestKept = this.entries[this.start]?.sequence ?? this.nextSequence;
    if (lastSequence + 1 < oldestKept) {
      throw new AgentProtocolError(
        "replay_gap",
        `Events ${lastSequence + 1}–${oldestKept - 1} are no longer held for replay; ` +
          "attach again without lastSequence to get the session's history.",
      );
    }
    return this.entries.slice(this.start + (lastSequence + 1 - oldestKept));
  }
}
