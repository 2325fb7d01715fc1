// One response's event log, for resume: a reconnecting client names the last sequence_number it
// saw and gets everything after it. Consecutive deltas of an item are kept as one run of text with
// the sequence number and end offset of each delta, so the log costs little more than the text;
// it is bounded, dropping its oldest events first.
import type { ResponseDeltaEvent, ResponseServerEvent } from "../../protocol/responses-events.ts";
import { isDelta } from "../wire/delta-coalescer.ts";

interface EventEntry {
  kind: "event";
  event: ResponseServerEvent;
  bytes: number;
}

interface RunEntry {
  kind: "run";
  /** The run's latest delta; replay sends one delta shaped like it, with the text from the cut. */
  template: ResponseDeltaEvent;
  text: string;
  sequenceNumbers: number[];
  /** text.length after each delta. */
  ends: number[];
}

type Entry = EventEntry | RunEntry;

const RUN_DELTA_BYTES = 16;

export class ReplayBuffer {
  private readonly entries: Entry[] = [];
  private totalBytes = 0;
  /** The oldest sequence number still held; a resume from before it cannot be served. */
  private firstHeld = 0;
  lastSequenceNumber = -1;

  constructor(private readonly maxBytes: number) {}

  /** `json`, when given, is the event's wire text (its size is what it costs to send again). */
  append(event: ResponseServerEvent, json?: string): void {
    this.lastSequenceNumber = event.sequence_number;
    const last = this.entries.at(-1);
    if (isDelta(event)) {
      if (
        last?.kind === "run" &&
        last.template.type === event.type &&
        last.template.item_id === event.item_id
      ) {
        last.template = event;
        last.text += event.delta;
        last.sequenceNumbers.push(event.sequence_number);
        last.ends.push(last.text.length);
      } else {
        this.entries.push({
          kind: "run",
          template: event,
          text: event.delta,
          sequenceNumbers: [event.sequence_number],
          ends: [event.delta.length],
        });
      }
      this.totalBytes += event.delta.length * 2 + RUN_DELTA_BYTES;
    } else {
      // An event's size is what it costs to send again (lifecycle events carry the whole response).
      const bytes = (json ?? JSON.stringify(event)).length;
      this.entries.push({ kind: "event", event, bytes });
      this.totalBytes += bytes;
    }
    this.evict();
  }

  /** Events after `lastSeen`, deltas merged per run; undefined when some were already dropped. */
  since(lastSeen: number): ResponseServerEvent[] | undefined {
    if (lastSeen + 1 < this.firstHeld) return undefined;
    const events: ResponseServerEvent[] = [];
    for (const entry of this.entries) {
      if (entry.kind === "event") {
        if (entry.event.sequence_number > lastSeen) events.push(entry.event);
        continue;
      }
      const firstUnseen = entry.sequenceNumbers.findIndex(
        (sequenceNumber) => sequenceNumber > lastSeen,
      );
      if (firstUnseen === -1) continue;
      const from = firstUnseen === 0 ? 0 : (entry.ends[firstUnseen - 1] ?? 0);
      events.push({ ...entry.template, delta: entry.text.slice(from) });
    }
    return events;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  private evict(): void {
    while (this.totalBytes > this.maxBytes && this.entries.length > 1) {
      const oldest = this.entries.shift();
      if (oldest === undefined) break;
      this.totalBytes -=
        oldest.kind === "event"
          ? oldest.bytes
          : oldest.text.length * 2 + RUN_DELTA_BYTES * oldest.ends.length;
      this.firstHeld = this.firstSequenceNumber();
    }
    const only = this.entries[0];
    if (this.totalBytes > this.maxBytes && only?.kind === "run" && only.ends.length > 1)
      this.trimRun(only);
  }

  /** Drops the older half of a run that alone is over the limit. */
  private trimRun(run: RunEntry): void {
    const drop = Math.ceil(run.ends.length / 2);
    const cut = run.ends[drop - 1] ?? 0;
    this.totalBytes -= cut * 2 + RUN_DELTA_BYTES * drop;
    run.text = run.text.slice(cut);
    run.sequenceNumbers = run.sequenceNumbers.slice(drop);
    run.ends = run.ends.slice(drop).map((end) => end - cut);
    this.firstHeld = run.sequenceNumbers[0] ?? this.firstHeld;
  }

  private firstSequenceNumber(): number {
    const first = this.entries[0];
    if (first === undefined) return this.lastSequenceNumber + 1;
    return first.kind === "event"
      ? first.event.sequence_number
      : (first.sequenceNumbers[0] ?? this.lastSequenceNumber + 1);
  }
}
