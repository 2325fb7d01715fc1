// Deltas per tick: tokens an engine yields in one burst leave as one delta event, numbered without
// gaps, and a token that arrives alone in its tick leaves alone (never held for a later one).
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
let client: RawWsClient | undefined;

afterEach(async () => {
  client?.socket.terminate();
  await harness?.close();
  harness = undefined;
});

async function runTurn(tokens: number, tokensPerSecond: number): Promise<ServerEvent[]> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens, tokensPerSecond }));
  client = await RawWsClient.connect(harness.url);
  const socket = client;
  socket.send({ type: "response.create", input: "Stream.", max_output_tokens: tokens });
  const deadline = Date.now() + 10_000;
  while (!socket.events.some((event) => event.type === "response.completed")) {
    if (Date.now() > deadline) throw new Error("the response did not complete in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return socket.events;
}

const deltasOf = (events: ServerEvent[]): ServerEvent[] =>
  events.filter((event) => event.type === "response.output_text.delta");

describe("delta coalescing per tick", () => {
  it("sends a burst of tokens as fewer deltas, gapless sequence numbers, the same text", async () => {
    // Unpaced, the synthetic engine yields 32 tokens per turn of the event loop.
    const events = await runTurn(256, Number.POSITIVE_INFINITY);
    const deltas = deltasOf(events);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(256);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const done = events.find((event) => event.type === "response.output_text.done");
    expect(deltas.map((event) => event.delta).join("")).toBe(done?.text);
    expect((done?.text as string).trim().split(" ")).toHaveLength(256);
  });

  it("sends a token that arrives alone in its tick at once, as its own delta", async () => {
    const events = await runTurn(12, 200);
    expect(deltasOf(events)).toHaveLength(12);
  });
});
