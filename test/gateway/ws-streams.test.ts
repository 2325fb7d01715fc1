// stream_id multiplexing on one WebSocket, as OpenAI's WebSocket mode defines it: lanes run at
// once, each lane runs its responses FIFO, every event is tagged with its lane, and the limits
// (16 in flight, 32 named lanes) and a malformed stream_id are refused with OpenAI's codes.
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

const isFinal = (event: ServerEvent): boolean =>
  ["response.completed", "response.incomplete", "response.failed"].includes(event.type);

async function connect(tokens: number, tokensPerSecond: number): Promise<RawWsClient> {
  harness = await startGatewayHarness(createSyntheticEngine({ tokens, tokensPerSecond }));
  client = await RawWsClient.connect(harness.url);
  return client;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("stream_id lanes", () => {
  it("runs two lanes at once and tags every event with its lane", async () => {
    const socket = await connect(40, 200);
    socket.send({ type: "response.create", stream_id: "a", input: "One.", max_output_tokens: 40 });
    socket.send({ type: "response.create", stream_id: "b", input: "Two.", max_output_tokens: 40 });
    await until(() => socket.events.filter(isFinal).length === 2);
    const firstFinal = socket.events.findIndex(isFinal);
    const created = socket.events.filter((event) => event.type === "response.created");
    // Both started before either ended: they ran concurrently.
    expect(created).toHaveLength(2);
    expect(created.every((event) => socket.events.indexOf(event) < firstFinal)).toBe(true);
    const lanes = new Set(socket.events.map((event) => event.stream_id));
    expect(lanes).toEqual(new Set(["a", "b"]));
    for (const lane of ["a", "b"]) {
      const ids = new Set(
        socket.events
          .filter((event) => event.stream_id === lane && event.type === "response.created")
          .map((event) => (event.response as { id: string }).id),
      );
      expect(ids.size).toBe(1);
    }
  });

  it("runs one lane's responses in order, the second after the first ends", async () => {
    const socket = await connect(10, 500);
    socket.send({ type: "response.create", stream_id: "q", input: "First." });
    socket.send({ type: "response.create", stream_id: "q", input: "Second." });
    await until(() => socket.events.filter(isFinal).length === 2);
    const types = socket.events
      .filter((event) => event.type === "response.created" || isFinal(event))
      .map((event) => event.type);
    expect(types).toEqual([
      "response.created",
      "response.completed",
      "response.created",
      "response.completed",
    ]);
    expect(socket.events.some((event) => event.type === "error")).toBe(false);
  });

  it("cancel and steer find their lane; on a lane never opened they fail without opening it", async () => {
    const socket = await connect(2000, 200);
    socket.send({ type: "response.cancel", stream_id: "ghost" });
    const notActive = await socket.waitFor((event) => event.type === "error");
    expect(notActive).toMatchObject({ code: "response_not_active", stream_id: "ghost" });
    socket.send({ type: "response.steer", stream_id: "ghost", input: "x" });
    const failed = await socket.waitFor((event) => event.type === "response.steer.failed");
    expect(failed).toMatchObject({ stream_id: "ghost", error: { code: "response_not_found" } });

    socket.send({ type: "response.create", stream_id: "a", input: "Long." });
    const created = await socket.waitFor((event) => event.type === "response.created");
    const responseId = (created.response as { id: string }).id;
    // No stream_id: the lane is found from the response id.
    socket.send({ type: "response.steer", previous_response_id: responseId, input: "Shorter." });
    const accepted = await socket.waitFor((event) => event.type === "response.steer.accepted");
    expect(accepted.stream_id).toBe("a");
    const from = socket.events.findIndex(isFinal) + 1;
    const successor = await socket.waitFor((event) => event.type === "response.created", from);
    expect(successor.stream_id).toBe("a");
    socket.send({ type: "response.cancel", stream_id: "a" });
    expect((await socket.waitFor(isFinal, from)).type).toBe("response.incomplete");
  });

  it("refuses a malformed stream_id, a 17th response in flight and a 33rd lane", async () => {
    const socket = await connect(2000, 100);
    socket.send({ type: "response.create", stream_id: "no spaces", input: "x" });
    const invalid = await socket.waitFor((event) => event.type === "error");
    expect(invalid.code).toBe("invalid_stream_id");

    for (let index = 0; index < 17; index++) {
      socket.send({ type: "response.create", stream_id: "busy", input: `Turn ${index}.` });
    }
    const overflow = await socket.waitFor(
      (event) => event.type === "error" && event.code === "websocket_stream_limit_reached",
    );
    expect(overflow.stream_id).toBe("busy");
    socket.socket.terminate();

    const fresh = await RawWsClient.connect(harness?.url ?? "");
    client = fresh;
    for (let index = 0; index < 32; index++) {
      fresh.send({
        type: "response.create",
        stream_id: `lane${index}`,
        input: "x",
        max_output_tokens: 1,
      });
      await fresh.waitFor((event) => isFinal(event) && event.stream_id === `lane${index}`);
    }
    fresh.send({ type: "response.create", stream_id: "lane32", input: "x", max_output_tokens: 1 });
    const tooMany = await fresh.waitFor((event) => event.type === "error");
    expect(tooMany.code).toBe("websocket_stream_limit_reached");
    expect(tooMany.message).toMatch(/32 stream_id lanes/);
  });

  it("tags a lane's events by appending stream_id, the rest byte for byte as without a lane", async () => {
    const socket = await connect(40, 400);
    const instructions = 'say "hi" \u2028 漢字 🎉';
    socket.send({ type: "response.create", stream_id: "a", input: "One.", instructions });
    const final = await socket.waitFor(isFinal);
    socket.send({ type: "response.cancel", stream_id: "ghost" });
    socket.send({ type: "response.steer", stream_id: "ghost", input: "x" });
    await socket.waitFor((event) => event.type === "response.steer.failed");
    // Replayed into another lane: the same events, re-tagged.
    const responseId = (final.response as { id: string }).id;
    socket.send({
      type: "response.resume",
      stream_id: "r",
      response_id: responseId,
      last_sequence_number: -1,
    });
    await until(() => socket.events.filter(isFinal).length === 2);

    const untagged = new Map<string, Map<number, string>>();
    for (const frame of socket.frames) {
      const event = JSON.parse(frame) as ServerEvent;
      const lane = event.stream_id as string;
      const suffix = `,"stream_id":${JSON.stringify(lane)}}`;
      // One stream_id, the last key, and nothing else rewritten: what JSON.stringify gives.
      expect(frame.endsWith(suffix), frame).toBe(true);
      expect(frame).toBe(JSON.stringify(event));
      const body = `${frame.slice(0, -suffix.length)}}`;
      const { stream_id: _lane, ...withoutLane } = event;
      expect(body).toBe(JSON.stringify(withoutLane));
      const byLane = untagged.get(lane) ?? new Map<number, string>();
      untagged.set(lane, byLane.set(event.sequence_number ?? -1, body));
    }
    expect([...untagged.keys()].sort()).toEqual(["a", "ghost", "r"]);
    // The replay merges runs of deltas; every other event is sent again as it was.
    const replayed = untagged.get("r") ?? new Map<number, string>();
    let compared = 0;
    for (const [sequence, body] of replayed) {
      if (body.includes('"type":"response.output_text.delta"')) continue;
      expect(body).toBe(untagged.get("a")?.get(sequence));
      compared += 1;
    }
    expect(compared).toBeGreaterThan(4);
  });
});
