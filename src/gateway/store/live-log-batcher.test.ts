// The logs of responses in flight: one store call per loop turn for every response, written before
// the events reach a client; a response another replica took over is stopped; a failing store
// leaves the responses running, unlogged.
import { describe, expect, it } from "vitest";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import type {
  ContinuableTurn,
  GatewayStore,
  LiveAppend,
  LiveAppendOutcome,
} from "./gateway-store.ts";
import { LiveLogBatcher } from "./live-log-batcher.ts";

const turn = {} as ContinuableTurn;
const event = (sequence: number, type = "response.output_text.delta"): ResponseServerEvent =>
  ({ type, sequence_number: sequence, delta: "x" }) as unknown as ResponseServerEvent;
const loopTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function fakeStore(
  outcome: () => Promise<LiveAppendOutcome[]> | undefined,
  calls: LiveAppend[][],
  order: string[],
): GatewayStore {
  return {
    appendLive(appends: readonly LiveAppend[]) {
      calls.push([...appends]);
      order.push("store");
      return outcome() ?? Promise.resolve(appends.map(() => "ok" as const));
    },
  } as unknown as GatewayStore;
}

describe("LiveLogBatcher", () => {
  it("writes what every response produced in a loop turn in one call, before delivering it", async () => {
    const calls: LiveAppend[][] = [];
    const order: string[] = [];
    const batcher = new LiveLogBatcher(
      fakeStore(() => undefined, calls, order),
      () => {},
    );
    const deliver = (name: string) => () => order.push(name);
    const a = batcher.open({
      id: "a",
      owner: "t",
      turn,
      deliver: deliver("a"),
      onSuperseded: () => {},
    });
    const b = batcher.open({
      id: "b",
      owner: "t",
      turn,
      deliver: deliver("b"),
      onSuperseded: () => {},
    });
    a.append(event(0), undefined);
    b.append(event(0), undefined);
    a.append(event(1), undefined);
    expect(order).toEqual([]);
    await loopTurn();
    expect(calls).toHaveLength(1);
    expect(
      calls[0]?.map((append) => [append.id, append.events.length, append.turn === turn]),
    ).toEqual([
      ["a", 2, true],
      ["b", 1, true],
    ]);
    expect(order).toEqual(["store", "a", "a", "b"]);
    a.append(event(2, "response.completed"), undefined);
    await loopTurn();
    expect(calls[1]?.[0]).toMatchObject({ id: "a", done: true });
    expect(calls[1]?.[0]?.turn).toBeUndefined();
  });

  it("stops a response another replica took over, and delivers unlogged when the store fails", async () => {
    const calls: LiveAppend[][] = [];
    const order: string[] = [];
    let answer = (): Promise<LiveAppendOutcome[]> => Promise.resolve(["superseded"]);
    const failures: unknown[] = [];
    const batcher = new LiveLogBatcher(
      fakeStore(() => answer(), calls, order),
      (error) => failures.push(error),
    );
    let superseded = 0;
    const lost = batcher.open({
      id: "a",
      owner: "t",
      turn,
      deliver: () => order.push("a"),
      onSuperseded: () => (superseded += 1),
    });
    lost.append(event(0), undefined);
    await loopTurn();
    await loopTurn();
    expect(superseded).toBe(1);
    answer = () => Promise.reject(new Error("store down"));
    const failing = batcher.open({
      id: "b",
      owner: "t",
      turn,
      deliver: () => order.push("b"),
      onSuperseded: () => {},
    });
    failing.append(event(0), undefined);
    await loopTurn();
    await loopTurn();
    expect(failures).toHaveLength(1);
    failing.append(event(1), undefined);
    expect(order.at(-1)).toBe("b");
    expect(calls).toHaveLength(2);
  });
});
