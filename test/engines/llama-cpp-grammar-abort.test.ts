// Issue 32, finding 6: a request whose client goes away while its structured-output grammar is
// being built stops there, on the real embedded engine and the tiny GGUF with one sequence: it
// never takes the sequence (no prompt evaluated), and the next request runs. The build happens off
// the event loop, which this test measures and prints (it asserts on order, not on time).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent, EngineRequest, Usage } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";

let engine: LlamaCppEngine;
beforeAll(async () => {
  engine = await createLlamaCppEngine({
    modelPath: await ensureTestModel(),
    threads: 1,
    sequences: 1,
    contextSize: 2048,
  });
});
afterAll(() => engine?.dispose());

/** At the property limit; each test names its own so no build is already cached. */
function wideRequest(prefix: string, maxOutputTokens: number): EngineRequest {
  const properties = Object.fromEntries(
    Array.from({ length: 5_000 }, (_, index) => [`${prefix}${index}`, { type: "string" }]),
  );
  return {
    model: "tiny",
    messages: [{ role: "user", content: "Fill it in." }],
    sampling: { maxOutputTokens },
    outputFormat: { type: "json_schema", name: "wide", schema: { type: "object", properties } },
  };
}

interface Outcome {
  reason: string | undefined;
  usage: Usage | undefined;
  deltas: number;
}

async function drain(
  stream: AsyncIterable<EngineEvent>,
  order: string[],
  label: string,
): Promise<Outcome> {
  const outcome: Outcome = { reason: undefined, usage: undefined, deltas: 0 };
  for await (const event of stream) {
    if (event.type === "text-delta") {
      if (outcome.deltas === 0) order.push(`${label} first token`);
      outcome.deltas += 1;
    } else if (event.type === "usage") outcome.usage = event.usage;
    else if (event.type === "finish") {
      outcome.reason = event.reason;
      order.push(`${label} ${event.reason}`);
    }
  }
  return outcome;
}

describe("a client gone while its grammar is built", () => {
  it("takes no sequence, and the next request runs", async () => {
    const order: string[] = [];
    const controller = new AbortController();
    const gone = drain(
      engine.stream(wideRequest("gone", 2_000), { signal: controller.signal }),
      order,
      "A",
    );
    // The next turn of the event loop: the request is inside its grammar build.
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort("disconnected");
    order.push("A aborted");
    const next = drain(
      engine.stream({
        model: "tiny",
        messages: [{ role: "user", content: "Hi" }],
        sampling: { maxOutputTokens: 4 },
      }),
      order,
      "B",
    );
    const [first, second] = await Promise.all([gone, next]);
    expect(first.reason).toBe("cancelled");
    // No prompt evaluated, no token: it stopped before taking the engine's only sequence.
    expect(first.usage).toMatchObject({ inputTokens: 0, outputTokens: 0 });
    expect(second.reason).not.toBe("error");
    expect(second.deltas).toBeGreaterThan(0);
    expect(order.indexOf("A cancelled")).toBeLessThan(order.indexOf("B first token"));
  });

  it("builds grammars at the limits without holding the event loop (printed)", async () => {
    const enumAtLimit: EngineRequest = {
      ...wideRequest("unused", 1),
      outputFormat: {
        type: "json_schema",
        name: "pick",
        schema: { enum: Array.from({ length: 1_000 }, (_, index) => `value-${index}`) },
      },
    };
    // The first build starts the grammar worker: not what a request at the limits costs.
    await engine.checkRequest({
      ...wideRequest("warm", 1),
      outputFormat: { type: "json_schema", name: "warm", schema: { type: "boolean" } },
    });
    for (const [label, request] of [
      ["5,000-property", wideRequest("measured", 1)],
      ["1,000-value enum", enumAtLimit],
    ] as const) {
      // A 1 ms timer's longest gap: the longest the event loop was held (monitorEventLoopDelay
      // misses a block that starts before its first tick).
      let longestGap = 0;
      let lastTick = performance.now();
      const probe = setInterval(() => {
        const now = performance.now();
        longestGap = Math.max(longestGap, now - lastTick);
        lastTick = now;
      }, 1);
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      await new Promise((resolve) => setTimeout(resolve, 5));
      const startedAt = performance.now();
      const refusal = await engine.checkRequest(request);
      const buildMs = performance.now() - startedAt;
      await new Promise((resolve) => setTimeout(resolve, 20));
      clearInterval(probe);
      delay.disable();
      expect(refusal).toBeUndefined();
      console.log(
        `${label} grammar: built in ${buildMs.toFixed(0)} ms, event loop held at most ` +
          `${longestGap.toFixed(1)} ms (monitorEventLoopDelay max ${(delay.max / 1e6).toFixed(1)} ms)`,
      );
    }
  });
});
