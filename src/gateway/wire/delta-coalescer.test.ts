// The coalescer against a transport whose buffer the test controls: straight through while it
// keeps up, merged deltas while it does not, dropped past the hard limit.
import { describe, expect, it } from "vitest";
import type { ResponseTextDeltaEvent } from "../../protocol/responses-events.ts";
import { DeltaCoalescer, type CoalescerTransport } from "./delta-coalescer.ts";
import type { TransportEvent } from "./event-json.ts";

function delta(sequenceNumber: number, text: string, itemId = "msg_1"): ResponseTextDeltaEvent {
  return {
    type: "response.output_text.delta",
    sequence_number: sequenceNumber,
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    delta: text,
    logprobs: [],
  };
}

function fakeTransport() {
  const written: TransportEvent[] = [];
  const lanes: Array<string | undefined> = [];
  const state = { buffered: 0, dropped: undefined as string | undefined };
  const transport: CoalescerTransport = {
    bufferedBytes: () => state.buffered,
    write: (event, _json, streamId) => {
      written.push(event);
      lanes.push(streamId);
    },
    drop: (reason) => {
      state.dropped = reason;
    },
  };
  return { transport, written, lanes, state };
}

describe("DeltaCoalescer", () => {
  it("writes straight through while the transport keeps up", () => {
    const { transport, written } = fakeTransport();
    const coalescer = new DeltaCoalescer(transport, { softBytes: 100, hardBytes: 1000 });
    coalescer.push(delta(0, "a"));
    coalescer.push(delta(1, "b"));
    expect(written.map((event) => event.sequence_number)).toEqual([0, 1]);
  });

  it("merges consecutive deltas of an item while the transport is full, keeping the last sequence number", async () => {
    const { transport, written, state } = fakeTransport();
    let merged = 0;
    const coalescer = new DeltaCoalescer(transport, {
      softBytes: 100,
      hardBytes: 100_000,
      pollIntervalMs: 1,
      onMerged: () => (merged += 1),
    });
    state.buffered = 500;
    coalescer.push(delta(0, "a"));
    coalescer.push(delta(1, "b"));
    coalescer.push(delta(2, "c", "msg_2"));
    coalescer.push(delta(3, "d", "msg_2"));
    expect(written).toEqual([]);
    state.buffered = 0;
    await coalescer.drained();
    expect(written).toEqual([{ ...delta(1, "ab") }, { ...delta(3, "cd", "msg_2") }]);
    expect(merged).toBe(2);
    expect(coalescer.backlogBytes).toBe(0);
  });

  it("keeps each waiting event's lane and merges deltas only within one lane", async () => {
    const { transport, written, lanes, state } = fakeTransport();
    const coalescer = new DeltaCoalescer(transport, {
      softBytes: 100,
      hardBytes: 100_000,
      pollIntervalMs: 1,
    });
    state.buffered = 500;
    coalescer.push(delta(0, "a"), undefined, "lane-1");
    coalescer.push(delta(1, "b"), undefined, "lane-1");
    coalescer.push(delta(2, "c"), undefined, "lane-2");
    coalescer.push(delta(3, "d"));
    state.buffered = 0;
    await coalescer.drained();
    expect(written).toEqual([delta(1, "ab"), delta(2, "c"), delta(3, "d")]);
    expect(lanes).toEqual(["lane-1", "lane-2", undefined]);
  });

  it("drops a client whose unsent bytes pass the hard limit, and says why", () => {
    const { transport, state } = fakeTransport();
    const coalescer = new DeltaCoalescer(transport, { softBytes: 100, hardBytes: 2000 });
    state.buffered = 1000;
    for (let index = 0; index < 10; index += 1) coalescer.push(delta(index, "x".repeat(100)));
    expect(state.dropped).toMatch(/too slow/);
    coalescer.stop();
  });
});
