// The replay log: exact replay after any sequence number, deltas stored as runs, and a bound
// that drops the oldest events and then refuses resumes that would need them.
import { describe, expect, it } from "vitest";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import { ReplayBuffer } from "./replay-buffer.ts";

function delta(sequenceNumber: number, text: string): ResponseServerEvent {
  return {
    type: "response.output_text.delta",
    sequence_number: sequenceNumber,
    item_id: "msg_1",
    output_index: 0,
    content_index: 0,
    delta: text,
    logprobs: [],
  };
}

function marker(sequenceNumber: number): ResponseServerEvent {
  return {
    type: "response.output_item.added",
    sequence_number: sequenceNumber,
    output_index: 0,
    item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] },
  };
}

const text = (events: ResponseServerEvent[] | undefined) =>
  (events ?? [])
    .map((event) => (event.type === "response.output_text.delta" ? event.delta : "|"))
    .join("");

describe("ReplayBuffer", () => {
  it("replays everything after a sequence number, merging each run of deltas", () => {
    const buffer = new ReplayBuffer(1e6);
    buffer.append(marker(0));
    ["a", "b", "c", "d"].forEach((piece, index) => buffer.append(delta(index + 1, piece)));
    buffer.append(marker(5));
    expect(text(buffer.since(-1))).toBe("|abcd|");
    expect(text(buffer.since(2))).toBe("cd|");
    expect(buffer.since(2)?.[0]?.sequence_number).toBe(4);
    expect(text(buffer.since(4))).toBe("|");
    expect(buffer.since(5)).toEqual([]);
  });

  it("drops the oldest events past its size, then refuses a resume that needs them", () => {
    const buffer = new ReplayBuffer(1000);
    buffer.append(marker(0));
    for (let index = 1; index <= 100; index += 1) buffer.append(delta(index, "xxxxxxxxxx"));
    expect(buffer.bytes).toBeLessThanOrEqual(1000);
    expect(buffer.since(-1)).toBeUndefined();
    const recent = buffer.since(95);
    expect(text(recent)).toBe("x".repeat(50));
  });
});
