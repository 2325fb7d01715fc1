import { describe, expect, it } from "vitest";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import { SessionEventBuffer } from "./session-event-buffer.ts";

const status = (index: number) => ({ type: "model-changed" as const, model: `m${index}` });

function filled(capacity: number, count: number): SessionEventBuffer {
  const buffer = new SessionEventBuffer("s1", capacity);
  for (let index = 1; index <= count; index += 1) buffer.append(status(index));
  return buffer;
}

describe("SessionEventBuffer", () => {
  it("numbers events 1, 2, 3 … for its session", () => {
    const buffer = new SessionEventBuffer("s1");
    expect(buffer.lastSequence).toBe(0);
    expect(buffer.append(status(1))).toEqual({ sessionId: "s1", sequence: 1, event: status(1) });
    expect(buffer.append(status(2)).sequence).toBe(2);
    expect(buffer.lastSequence).toBe(2);
  });

  it("replays exactly the events after lastSequence, in order", () => {
    const buffer = filled(10, 7);
    expect(buffer.after(4).map((entry) => entry.sequence)).toEqual([5, 6, 7]);
    expect(buffer.after(7)).toEqual([]);
    expect(buffer.after(0).map((entry) => entry.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("keeps only the newest events and reports a gap for older ones", () => {
    const buffer = filled(5, 23);
    expect(buffer.after(18).map((entry) => entry.sequence)).toEqual([19, 20, 21, 22, 23]);
    expect(buffer.after(20).map((entry) => entry.event)).toEqual([
      status(21),
      status(22),
      status(23),
    ]);
    let error: unknown;
    try {
      buffer.after(17);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AgentProtocolError);
    expect(error).toMatchObject({ code: "replay_gap", rpcCode: -32004 });
    expect((error as Error).message).toContain("Events 18–18");
    expect((error as Error).message).toContain("without lastSequence");
  });

  it("stays correct across many compactions", () => {
    const buffer = filled(3, 1000);
    expect(buffer.after(997).map((entry) => entry.sequence)).toEqual([998, 999, 1000]);
    expect(() => buffer.after(996)).toThrow(/no longer held/);
  });

  it("refuses a lastSequence ahead of the session", () => {
    const buffer = filled(5, 2);
    expect(() => buffer.after(3)).toThrow(/ahead of this session/);
  });

  it("refuses a capacity below one", () => {
    expect(() => new SessionEventBuffer("s1", 0)).toThrow(RangeError);
  });
});
