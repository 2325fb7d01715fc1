// eventJson must send exactly the bytes JSON.stringify would: clients parse them, and replay and
// resume tests compare them.
import { describe, expect, it } from "vitest";
import type { ResponseServerEvent } from "../protocol/responses-events.ts";
import { mergeDeltas, type TransportEvent } from "./delta-coalescer.ts";
import { eventJson } from "./event-json.ts";
import { ReplayBuffer } from "./replay-buffer.ts";
import { ResponseEventWriter } from "./response-event-writer.ts";

function writtenEvents(texts: string[]): ResponseServerEvent[] {
  const events: ResponseServerEvent[] = [];
  const skeleton = { id: "resp_1", object: "response", status: "in_progress" } as never;
  const writer = new ResponseEventWriter(skeleton, (event) => events.push(event));
  writer.started();
  for (const text of texts) writer.textDelta(text);
  writer.finish({ status: "completed", usage: undefined, sparkTimings: undefined as never });
  return events;
}

const awkward = [
  " plain",
  ' "quoted" \\ back',
  "line\nbreak\ttab",
  "é ü 漢字 🎉",
  "\u0000\u001f\u2028",
];

describe("eventJson", () => {
  it("writes every event of a response exactly as JSON.stringify does, with and without a lane", () => {
    for (const event of writtenEvents(awkward)) {
      expect(eventJson(event)).toBe(JSON.stringify(event));
      const tagged: TransportEvent = { ...event, stream_id: "lane:1" };
      expect(eventJson(tagged)).toBe(JSON.stringify(tagged));
    }
  });

  it("writes merged and replayed deltas exactly as JSON.stringify does", () => {
    const events = writtenEvents(awkward);
    const replay = new ReplayBuffer(1 << 20);
    for (const event of events) replay.append(event);
    for (const event of replay.since(-1) ?? [])
      expect(eventJson(event)).toBe(JSON.stringify(event));
    const delta = events.find((event) => event.type === "response.output_text.delta");
    if (delta?.type !== "response.output_text.delta") throw new Error("no delta written");
    const merged = mergeDeltas(delta, { ...delta, sequence_number: 9, delta: " more" });
    expect(merged).toBeDefined();
    if (merged !== undefined) expect(eventJson(merged)).toBe(JSON.stringify(merged));
  });
});
