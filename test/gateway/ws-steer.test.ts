// Steering in OpenAI's WebSocket shape: response.steer with previous_response_id, the
// response.steer.accepted acknowledgement, the steered response ending `incomplete` (reason
// steered), its automatic successor, response.steer.failed with OpenAI's codes, and
// response.steer.pending when the response waits for tool output.
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

describe("response.steer while a response waits for tool output", () => {
  const tools = [{ type: "function", name: "read_file", parameters: { type: "object" } }];
  const callArguments = JSON.stringify({ path: "src/parser.ts", note: "x".repeat(200) });

  /** A response that streams one read_file call (about 30 argument pieces at 200 tokens/s). */
  async function startCall(): Promise<{
    socket: RawWsClient;
    engine: ReturnType<typeof createSyntheticEngine>;
  }> {
    const engine = createSyntheticEngine({
      tokensPerSecond: 200,
      toolCall: { name: "read_file", arguments: callArguments },
    });
    harness = await startGatewayHarness(engine);
    client = await RawWsClient.connect(harness.url);
    client.send({ type: "response.create", input: "Read the parser.", tools });
    return { socket: client, engine };
  }

  async function continueWithOutput(socket: RawWsClient, responseId: string): Promise<void> {
    const completed = await socket.finalEvent();
    const output = (completed.response as { output: { type: string; call_id: string }[] }).output;
    const call = output.find((item) => item.type === "function_call");
    socket.send({
      type: "response.create",
      previous_response_id: responseId,
      input: [{ type: "function_call_output", call_id: call?.call_id, output: "export {}" }],
      tools,
    });
    await socket.finalEvent(socket.events.indexOf(completed) + 1);
  }

  it("lets a response that called a tool complete, then says the input is pending with the outputs it needs", async () => {
    const { socket, engine } = await startCall();
    const created = await socket.waitFor((event) => event.type === "response.created");
    const responseId = responseOf(created).id;
    await socket.waitFor((event) => event.type === "response.function_call_arguments.delta");
    socket.send({ type: "response.steer", previous_response_id: responseId, input: "Use tabs." });
    const accepted = await socket.waitFor((event) => event.type === "response.steer.accepted");
    const completed = await socket.finalEvent();
    // Not stopped: the call is whole and the response completed.
    expect(completed.type).toBe("response.completed");
    const pending = await socket.waitFor((event) => event.type === "response.steer.pending");
    expect(socket.events.indexOf(pending)).toBeGreaterThan(socket.events.indexOf(completed));
    const output = (completed.response as { output: { type: string; call_id: string }[] }).output;
    const callId = output.find((item) => item.type === "function_call")?.call_id;
    expect(pending).toMatchObject({
      steer: { id: (accepted.steer as { id: string }).id, previous_response_id: responseId },
      reason: "waiting_for_required_input",
      required_input: [{ type: "function_call_output", call_id: callId }],
    });
    // No successor starts on its own.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(socket.events.filter((event) => event.type === "response.created")).toHaveLength(1);
    // The continuation with the output gets the steering input first.
    await continueWithOutput(socket, responseId);
    const messages = engine.requests.at(-1)?.messages ?? [];
    expect(messages.slice(-2)).toEqual([
      { role: "user", content: "Use tabs." },
      expect.objectContaining({ role: "tool", toolCallId: callId, content: "export {}" }),
    ]);
  });

  it("holds a steer that arrives after the response completed with a call, and prepends it once", async () => {
    const { socket, engine } = await startCall();
    const completed = await socket.finalEvent();
    const responseId = responseOf(completed).id;
    socket.send({ type: "response.steer", previous_response_id: responseId, input: "Be brief." });
    socket.send({ type: "response.steer", previous_response_id: responseId, input: "No tests." });
    await socket.waitFor(
      () => socket.events.filter((event) => event.type === "response.steer.pending").length === 2,
    );
    expect(socket.events.filter((event) => event.type === "response.created")).toHaveLength(1);
    await continueWithOutput(socket, responseId);
    const messages = engine.requests.at(-1)?.messages ?? [];
    expect(messages.slice(-3).map((message) => message.content)).toEqual([
      "Be brief.",
      "No tests.",
      "export {}",
    ]);
    // Used once: a later follow-up on the same chain carries only its own input.
    const last = await socket.finalEvent();
    socket.send({
      type: "response.create",
      previous_response_id: responseOf(last).id,
      input: "Thanks.",
    });
    await socket.finalEvent(socket.events.indexOf(last) + 1);
    const followUp = engine.requests.at(-1)?.messages ?? [];
    expect(followUp.filter((message) => message.content === "Be brief.")).toHaveLength(1);
  });
});
