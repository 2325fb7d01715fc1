// Steering in OpenAI's WebSocket shape: response.steer with previous_response_id, the
// response.steer.accepted acknowledgement, the steered response ending `incomplete` (reason
// steered), its automatic successor, and response.steer.failed with OpenAI's codes.
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

type ResponseJson = {
  id: string;
  previous_response_id: string | null;
  incomplete_details: { reason: string } | null;
};

const responseOf = (event: ServerEvent): ResponseJson => event.response as ResponseJson;

async function startStreaming(): Promise<{
  responseId: string;
  engine: ReturnType<typeof createSyntheticEngine>;
}> {
  const engine = createSyntheticEngine({ tokensPerSecond: 200, tokens: 2000 });
  harness = await startGatewayHarness(engine);
  client = await RawWsClient.connect(harness.url);
  client.send({ type: "response.create", input: "Refactor the parser.", max_output_tokens: 1000 });
  const created = await client.waitFor((event) => event.type === "response.created");
  await client.waitFor((event) => event.type === "response.output_text.delta");
  return { responseId: responseOf(created).id, engine };
}

describe("response.steer, OpenAI's shape", () => {
  it("is accepted, ends the response as steered, and a successor continues on its own", async () => {
    const { responseId, engine } = await startStreaming();
    const socket = client as RawWsClient;
    socket.send({
      type: "response.steer",
      previous_response_id: responseId,
      input: "Keep the public API unchanged.",
    });
    const accepted = await socket.waitFor((event) => event.type === "response.steer.accepted");
    const steer = accepted.steer as { id: string; previous_response_id: string };
    expect(steer.id).toMatch(/^steer_[0-9a-f]{32}$/);
    expect(steer.previous_response_id).toBe(responseId);
    const steered = await socket.finalEvent();
    expect(steered.type).toBe("response.incomplete");
    expect(responseOf(steered).incomplete_details?.reason).toBe("steered");
    const from = socket.events.indexOf(steered) + 1;
    const successor = await socket.waitFor((event) => event.type === "response.created", from);
    expect(responseOf(successor).previous_response_id).toBe(responseId);
    await socket.waitFor((event) => event.type === "response.output_text.delta", from);
    expect(engine.requests.at(-1)?.messages.at(-1)).toEqual({
      role: "user",
      content: "Keep the public API unchanged.",
    });
    socket.send({ type: "response.cancel" });
    await socket.finalEvent(from);
  });

  it("fails with response_not_found, invalid_input and too_many_pending_steers, returning the input", async () => {
    const { responseId } = await startStreaming();
    const socket = client as RawWsClient;
    socket.send({ type: "response.steer", previous_response_id: "resp_unknown", input: "Hi" });
    socket.send({ type: "response.steer", previous_response_id: responseId, input: [] });
    for (let index = 0; index < 9; index++) {
      socket.send({
        type: "response.steer",
        previous_response_id: responseId,
        input: `Note ${index}`,
      });
    }
    await socket.finalEvent();
    const failures = socket.events.filter((event) => event.type === "response.steer.failed");
    expect(failures.map((event) => (event.error as { code: string }).code)).toEqual([
      "response_not_found",
      "invalid_input",
      "too_many_pending_steers",
    ]);
    expect(failures[0]?.steer).toEqual({ previous_response_id: "resp_unknown", input: "Hi" });
    expect(failures[2]?.steer).toMatchObject({ input: "Note 8" });
    const accepted = socket.events.filter((event) => event.type === "response.steer.accepted");
    expect(accepted).toHaveLength(8);
  });

  it("keeps Spark's earlier shape (response_id) as an alias", async () => {
    const { responseId } = await startStreaming();
    const socket = client as RawWsClient;
    socket.send({ type: "response.steer", response_id: responseId, input: "Shorter." });
    const accepted = await socket.waitFor((event) => event.type === "response.steer.accepted");
    expect(accepted.steer).toMatchObject({ previous_response_id: responseId });
    expect(responseOf(await socket.finalEvent()).incomplete_details?.reason).toBe("steered");
  });
});
