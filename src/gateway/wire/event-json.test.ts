// eventJson must send exactly the bytes JSON.stringify would: clients parse them, and replay and
// resume tests compare them.
import { describe, expect, it } from "vitest";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import { mergeDeltas } from "./delta-coalescer.ts";
import { eventJson, withStreamId } from "./event-json.ts";
import { ReplayBuffer } from "../turn/replay-buffer.ts";
import { ResponseEventWriter } from "../turn/response-event-writer.ts";

/** The events a response is written as, each with the wire text the writer gave it (if any). */
function writtenWithJson(texts: string[]): Array<{ event: ResponseServerEvent; json?: string }> {
  const written: Array<{ event: ResponseServerEvent; json?: string }> = [];
  const skeleton = {
    id: "resp_1",
    object: "response",
    status: "in_progress",
    instructions: 'say "hi" \u2028 漢字',
    tools: [{ type: "function", name: "f", parameters: { type: "object" } }],
  } as never;
  const writer = new ResponseEventWriter(skeleton, (event, json) =>
    written.push(json === undefined ? { event } : { event, json }),
  );
  writer.started();
  for (const text of texts) writer.textDelta(text);
  writer.finish({ status: "completed", usage: undefined, sparkTimings: undefined as never });
  return written;
}

function writtenEvents(texts: string[]): ResponseServerEvent[] {
  return writtenWithJson(texts).map((entry) => entry.event);
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
      expect(eventJson(event, "lane:1")).toBe(JSON.stringify({ ...event, stream_id: "lane:1" }));
    }
  });

  it("hands on wire text written once that is JSON.stringify's, and tags it with a lane", () => {
    const written = writtenWithJson(awkward).filter((entry) => entry.json !== undefined);
    expect(written.map((entry) => entry.event.type)).toEqual([
      "response.created",
      "response.in_progress",
    ]);
    for (const { event, json } of written) {
      expect(json).toBe(JSON.stringify(event));
      expect(withStreamId(json ?? "", 'lane"1')).toBe(
        JSON.stringify({ ...event, stream_id: 'lane"1' }),
      );
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
