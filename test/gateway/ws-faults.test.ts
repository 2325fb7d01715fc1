// Fault tests for the WebSocket path: malformed and oversized frames, unknown models, engine
// failures mid-stream, and slow clients. After each fault the connection and server keep serving.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import type { Engine } from "../../src/engines/engine.ts";
import type { ServeConfig } from "../../src/gateway/index.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { deltaText, RawWsClient } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
const clients: RawWsClient[] = [];

async function connectTo(engine: Engine, config: Partial<ServeConfig> = {}): Promise<RawWsClient> {
  harness = await startGatewayHarness(engine, config);
  const client = await RawWsClient.connect(harness.url);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  await harness?.close();
  harness = undefined;
});

async function expectNormalTurn(client: RawWsClient): Promise<void> {
  const from = client.events.length;
  client.send({ type: "response.create", input: "Are you still there?" });
  expect((await client.finalEvent(from)).type).toBe("response.completed");
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

const malformedFrames: Array<string | Buffer> = [
  "{not json",
  "[]",
  '"just a string"',
  JSON.stringify({ type: "response.explode" }),
  JSON.stringify({ no_type: true }),
  JSON.stringify({ type: "response.create", input: 42 }),
  JSON.stringify({ type: "response.create", input: [{ role: "wizard", content: "hi" }] }),
  JSON.stringify({ type: "response.create", input: "hi", temperature: 9 }),
  JSON.stringify({ type: "response.resume" }),
  Buffer.from([0, 1, 2, 3]),
];

describe("WebSocket faults", () => {
  it("answers each bad frame with an actionable error event and keeps the connection", async () => {
    const client = await connectTo(createSyntheticEngine({ tokens: 4 }));
    for (const frame of malformedFrames) client.sendRaw(frame);
    await client.waitFor(() => client.events.length >= malformedFrames.length);
    const codes = client.events.map((event) => event.code);
    expect(codes).toEqual([
      "invalid_json",
      "invalid_request",
      "invalid_request",
      "unknown_event_type",
      "invalid_request",
      "invalid_request",
      "invalid_request",
      "invalid_request",
      "invalid_request",
      "invalid_json",
    ]);
    const roleError = client.events[6];
    expect(roleError?.param).toBe("input[0].role");
    expect(String(roleError?.message)).toMatch(/input\[0\]\.role/);
    expect(client.events[7]?.param).toBe("temperature");
    await expectNormalTurn(client);
  });

  it("survives a burst of 1,000 malformed frames with flat memory, then serves a normal turn", async () => {
    const client = await connectTo(createSyntheticEngine({ tokens: 4 }));
    const burst = async (count: number): Promise<void> => {
      const from = client.events.length;
      for (let index = 0; index < count; index += 1) {
        client.sendRaw(malformedFrames[index % malformedFrames.length] ?? "{");
      }
      await client.waitFor(() => client.events.length - from >= count, 0, 30_000);
    };
    await burst(200);
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    await burst(1000);
    client.events.length = 0;
    collectGarbage();
    const growth = process.memoryUsage().heapUsed - before;
    expect(growth).toBeLessThan(20 * 1024 * 1024);
    await expectNormalTurn(client);
  });

  it("an oversized frame gets frame_too_large, not a dropped connection", async () => {
    const client = await connectTo(createSyntheticEngine({ tokens: 4 }), { maxFrameBytes: 2048 });
    client.send({ type: "response.create", input: "x".repeat(4096) });
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("frame_too_large");
    expect(String(error.message)).toContain("2048");
    await expectNormalTurn(client);
  });

  it("an unknown model is model_not_found", async () => {
    const client = await connectTo(createSyntheticEngine({ tokens: 4 }));
    client.send({ type: "response.create", model: "gpt-imaginary", input: "Hi." });
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("model_not_found");
    expect(error.param).toBe("model");
    expect(error.status).toBe(404);
    await expectNormalTurn(client);
  });

  it("input over the context limit is context_length_exceeded", async () => {
    const client = await connectTo(createSyntheticEngine({ tokens: 4 }), {
      contextLimitTokens: 100,
    });
    client.send({ type: "response.create", input: "word ".repeat(200) });
    const error = await client.waitFor((event) => event.type === "error");
    expect(error.code).toBe("context_length_exceeded");
    expect(String(error.message)).toContain("100");
    await expectNormalTurn(client);
  });

  it("an evicted previous_response_id is previous_response_not_found", async () => {
    const client = await connectTo(createSyntheticEngine({ tokens: 4 }), {
      responseStoreMaxEntries: 1,
    });
    client.send({ type: "response.create", input: "First." });
    const first = (await client.finalEvent()).response as { id: string };
    await expectNormalTurn(client);
    const from = client.events.length;
    client.send({
      type: "response.create",
      input: "Back to the first.",
      previous_response_id: first.id,
    });
    const error = await client.waitFor((event) => event.type === "error", from);
    expect(error.code).toBe("previous_response_not_found");
    expect(error.param).toBe("previous_response_id");
  });

  it("an engine error mid-stream ends the response with response.failed and the engine's code", async () => {
    const client = await connectTo(
      createSyntheticEngine({ tokensPerSecond: 1000, tokens: 50, failAfterTokens: 5 }),
    );
    client.send({ type: "response.create", input: "Start." });
    const final = await client.finalEvent();
    expect(final.type).toBe("response.failed");
    const response = final.response as {
      status: string;
      error: { code: string; spark_code: string };
    };
    expect(response.status).toBe("failed");
    expect(response.error).toMatchObject({ code: "server_error", spark_code: "upstream_error" });
    expect(deltaText(client.events).length).toBeGreaterThan(0);
    expect(harness?.gateway.metrics.render()).toContain(
      'spark_gateway_errors_total{code="upstream_error"} 1',
    );
  });

  it("a client that stops reading gets merged deltas, and every byte of text, once it reads again", async () => {
    // Tokens of 1 KB, so the kernel's socket buffers fill and the gateway's own backlog starts.
    const tokens = 12_000;
    const client = await connectTo(createSyntheticEngine({ tokens, text: "chunk".repeat(200) }), {
      sendBufferSoftBytes: 16 * 1024,
      sendBufferHardBytes: 64 * 1024 * 1024,
    });
    client.socket.pause();
    client.send({ type: "response.create", input: "Flood me." });
    await until(() =>
      /spark_gateway_merged_deltas_total [1-9]/.test(harness?.gateway.metrics.render() ?? ""),
    );
    client.socket.resume();
    const final = await client.finalEvent(0, 30_000);
    const text = deltaText(client.events);
    const output = (final.response as { output: Array<{ content: Array<{ text: string }> }> })
      .output[0]?.content[0]?.text;
    expect(text).toBe(output);
    const deltaEvents = client.events.filter(
      (event) => event.type === "response.output_text.delta",
    );
    expect(deltaEvents.length).toBeLessThan(tokens);
  });

  it("a hopeless client is dropped with 1013 and a reason, and its engine freed", async () => {
    const engine = createSyntheticEngine({ tokens: 200_000, text: "chunk".repeat(200) });
    const client = await connectTo(engine, {
      sendBufferSoftBytes: 16 * 1024,
      sendBufferHardBytes: 256 * 1024,
      resumeGraceSeconds: 0,
    });
    client.socket.pause();
    client.send({ type: "response.create", input: "Flood me." });
    await until(
      () =>
        engine.activeStreams === 0 && /slow_client/.test(harness?.gateway.metrics.render() ?? ""),
    );
    client.socket.resume();
    expect(await client.closed()).toBe(1013);
    expect(client.closeReason).toMatch(/too slow/);
  });
});
