// The FallbackEngine's decisions on in-memory engines that fail on cue: which errors retry, which
// move down the chain, which stop it, and a client abort during a backoff wait.
import { describe, expect, it } from "vitest";
import { collectStream } from "../engines/collect-stream.ts";
import type { Engine, EngineEvent } from "../engines/engine.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { createScriptEngine } from "../engines/script/script-engine.ts";
import { createSyntheticEngine } from "../engines/synthetic/synthetic-engine.ts";
import { CircuitBreaker } from "./circuit-breaker.ts";
import { FallbackEngine, type Upstream } from "./fallback-engine.ts";
import { RouterMetrics } from "./router-metrics.ts";

type Script = Array<SparkError | string>;

/** An engine that answers call n with script[n]: a text answer or an error before any output. */
function scriptedEngine(script: Script): Engine & { calls: number } {
  const engine = {
    kind: "test",
    calls: 0,
    async *stream(): AsyncIterable<EngineEvent> {
      const step = script[Math.min(engine.calls, script.length - 1)];
      engine.calls += 1;
      yield { type: "usage", usage: { inputTokens: 1, cachedInputTokens: 0, outputTokens: 1 } };
      const timings = {
        queueMs: 0,
        timeToFirstTokenMs: null,
        prefillMs: 0,
        decodeMs: 0,
        decodeTokensPerSecond: null,
        totalMs: 0,
      };
      if (step instanceof SparkError) {
        yield { type: "timings", timings };
        yield { type: "finish", reason: "error", error: step };
        return;
      }
      yield { type: "text-delta", text: step ?? "" };
      yield { type: "timings", timings };
      yield { type: "finish", reason: "stop" };
    },
    listModels: async () => [],
    dispose: async () => {},
    [Symbol.asyncDispose]: async () => {},
  };
  return engine;
}

function chainOf(scripts: Record<string, Script>) {
  const engines = Object.fromEntries(
    Object.entries(scripts).map(([name, script]) => [name, scriptedEngine(script)]),
  );
  const upstreams: Upstream[] = Object.entries(engines).map(([name, engine]) => ({
    name,
    engine: async () => engine,
    breaker: new CircuitBreaker({ failures: 2, windowMs: 60_000, openMs: 60_000 }),
  }));
  const fallback = new FallbackEngine(
    upstreams,
    {
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, maxRetryAfterMs: 60_000 },
      deadlineMs: 30_000,
      random: () => 0,
    },
    new RouterMetrics(),
  );
  return { fallback, engines, upstreams };
}

const retryable = (
  code: "upstream_error" | "rate_limited" = "upstream_error",
  retryAfterMs?: number,
) =>
  new SparkError(code, "flaky", {
    retryable: true,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe("FallbackEngine", () => {
  it("retries a retryable failure on the same upstream", async () => {
    const { fallback, engines } = chainOf({ a: [retryable(), "from a"], b: ["from b"] });
    const result = await collectStream(fallback.stream({ messages: [] }));
    expect(result.text).toBe("from a");
    expect(result.timings?.routing).toMatchObject({ model: "a", retries: 1, fallbacks: 0 });
    expect(engines.b?.calls).toBe(0);
  });

  it("moves on without retrying a non-retryable upstream error (context too long for fast)", async () => {
    const tooLong = new SparkError("context_length_exceeded", "too long");
    const { fallback, engines } = chainOf({ a: [tooLong], b: ["from b"] });
    const result = await collectStream(fallback.stream({ messages: [] }));
    expect(result.text).toBe("from b");
    expect(engines.a?.calls).toBe(1);
    expect(
      result.timings?.routing?.attempts.map((attempt) => attempt.code ?? attempt.outcome),
    ).toEqual(["context_length_exceeded", "ok"]);
  });

  it("stops the chain on a bad request: no other upstream would take it", async () => {
    const { fallback, engines, upstreams } = chainOf({
      a: [new SparkError("invalid_request", "bad")],
      b: ["from b"],
    });
    const result = await collectStream(fallback.stream({ messages: [] }));
    expect(result.error?.code).toBe("invalid_request");
    expect(engines.b?.calls).toBe(0);
    expect(upstreams[0]?.breaker.state).toBe("closed");
  });

  it("keeps the last error when every upstream fails, and stops calling an open circuit", async () => {
    const { fallback, engines } = chainOf({ a: [retryable()], b: [retryable("rate_limited")] });
    const first = await collectStream(fallback.stream({ messages: [] }));
    expect(first.error?.code).toBe("rate_limited");
    // Two failures opened each breaker on the first request's retries: the second sends nothing.
    const callsBefore = (engines.a?.calls ?? 0) + (engines.b?.calls ?? 0);
    const second = await collectStream(fallback.stream({ messages: [] }));
    expect((engines.a?.calls ?? 0) + (engines.b?.calls ?? 0)).toBe(callsBefore);
    expect(second.timings?.routing?.attempts.map((attempt) => attempt.outcome)).toEqual([
      "skipped",
      "skipped",
    ]);
    expect(second.error?.message).toMatch(/circuit open/);
  });

  it("a retry-after past the deadline is not waited for", async () => {
    const { fallback, engines } = chainOf({ a: [retryable("rate_limited", 40_000), "late"] });
    const result = await collectStream(fallback.stream({ messages: [] }));
    expect(result.error?.code).toBe("rate_limited");
    expect(engines.a?.calls).toBe(1);
    expect(result.timings?.routing?.backoffMs).toBe(0);
  });

  it("a client abort during a retry-after wait ends the stream cancelled at once", async () => {
    const { fallback } = chainOf({ a: [retryable("rate_limited", 10_000), "late"] });
    const controller = new AbortController();
    const pending = collectStream(fallback.stream({ messages: [] }, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    const result = await pending;
    expect(result.finishReason).toBe("cancelled");
    expect(result.timings?.routing?.backoffMs).toBe(10_000);
  });

  it("checkRequest asks the upstream stream() would try first: its refusal is the chain's", async () => {
    const breaker = () => new CircuitBreaker({ failures: 1, windowMs: 60_000, openMs: 60_000 });
    const synthetic = createSyntheticEngine();
    const script = await createScriptEngine({ turns: [{ text: "{}" }] });
    const upstreams: Upstream[] = [
      { name: "synthetic", engine: async () => synthetic, breaker: breaker() },
      { name: "script", engine: async () => script, breaker: breaker() },
    ];
    const fallback = new FallbackEngine(
      upstreams,
      {
        retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
        deadlineMs: 1_000,
      },
      new RouterMetrics(),
    );
    const request = {
      messages: [{ role: "user" as const, content: "JSON please." }],
      outputFormat: { type: "json_object" as const },
    };
    expect((await fallback.checkRequest(request))?.message).toMatch(/synthetic engine cannot/);
    // With the synthetic upstream's breaker open, the script engine (which replays) is first.
    upstreams[0]?.breaker.failure();
    expect(await fallback.checkRequest(request)).toBeUndefined();
  });
});
