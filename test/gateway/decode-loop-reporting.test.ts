// Which decode loop ran a response, everywhere an operator looks: spark_timings.decode_loop on both
// APIs, /metrics by loop, and `spark prompt --stats`. On a machine where the native loop quietly
// fell back (issue 23, finding 1), nothing said so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatStats } from "../../src/cli/actions/prompt-action.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { DecodeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

interface WithTimings {
  spark_timings?: { decode_loop?: string; sampling?: string };
}

describe.each<DecodeLoop>(["native", "node-llama-cpp"])("the %s decode loop is named", (loop) => {
  let harness: GatewayHarness;

  beforeAll(async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 1024,
      decodeLoop: loop,
    });
    // Where the addon is not built, "native" falls back: that must show, not pass as native.
    expect(engine.decodeLoop, engine.decodeLoopFallbackReason).toBe(loop);
    harness = await startGatewayHarness(engine);
  });
  afterAll(async () => {
    await harness?.close();
    await harness?.engine.dispose();
  });

  const post = async (path: string, body: object): Promise<WithTimings> => {
    const response = await fetch(`${harness.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: harness.model, ...body }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as WithTimings;
  };

  it("in spark_timings on Responses and Chat Completions, and in /metrics", async () => {
    const response = await post("/v1/responses", { input: "Say hello.", max_output_tokens: 6 });
    expect(response.spark_timings?.decode_loop).toBe(loop);
    // Where the native loop sampled (on the CPU backend "auto" samples on the host); nothing on
    // node-llama-cpp's loop.
    expect(response.spark_timings?.sampling).toBe(loop === "native" ? "host" : undefined);
    const completion = await post("/v1/chat/completions", {
      messages: [{ role: "user", content: "Say hello." }],
      max_tokens: 6,
    });
    expect(completion.spark_timings?.decode_loop).toBe(loop);
    const metrics = await (await fetch(`${harness.url}/metrics`)).text();
    expect(metrics).toContain(`spark_gateway_decode_loop_responses_total{loop="${loop}"} 2\n`);
  });
});

describe("spark prompt --stats", () => {
  it("ends its line with the loop that decoded, and says nothing of one for other engines", () => {
    const usage = { inputTokens: 9, cachedInputTokens: 0, outputTokens: 4 };
    const timings = {
      queueMs: 0,
      timeToFirstTokenMs: 12,
      prefillMs: 10,
      decodeMs: 3,
      decodeTokensPerSecond: 1000,
      totalMs: 15,
    };
    expect(formatStats(usage, { ...timings, decodeLoop: "node-llama-cpp" }, "stop")).toMatch(
      /, finish stop, loop node-llama-cpp$/,
    );
    expect(formatStats(usage, timings, "stop")).not.toContain("loop");
    expect(
      formatStats(usage, { ...timings, decodeLoop: "native", sampling: "device+host" }, "stop"),
    ).toMatch(/, loop native, sampling device\+host$/);
  });
});
