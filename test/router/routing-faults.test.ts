// Fallback, retries, retry-after, the circuit breaker and the deadline through a real gateway and
// router against loopback fake upstreams (429 with retry-after, 500, stalls, resets). Times are
// measured and printed as the fault table; assertions only bound them generously. Each case has its
// own upstreams and gateway, and mostly waits (a retry-after, timeouts, a deadline): they run at
// once.
import { afterAll, describe, expect, it, type TestContext } from "vitest";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import {
  createResponse,
  readMetrics,
  startRoutedGateway,
  type RoutedGateway,
  type RoutedGatewayOptions,
  type RoutedResponse,
} from "./routed-gateway.ts";

const HELLO = "Hello! How can I help you today?";
const ok = { fixture: "openai-text.sse" };
const stallBeforeHeaders = { fixture: "openai-text.sse", headersDelayMs: 20_000 };
const promptly = 15_000;

const faultTable: string[] = [];

interface Route {
  gateway: RoutedGateway;
  spark: ReplayServer;
  backup: ReplayServer;
  codex: ReplayServer;
}

/** This case's own three upstreams (each answering `ok` until told otherwise) and the gateway
 * routing to them, closed when the case ends. */
async function startRoute(
  context: TestContext,
  router = "",
  options: RoutedGatewayOptions = {},
): Promise<Route> {
  const [spark, backup, codex] = await Promise.all([
    ReplayServer.start(),
    ReplayServer.start(),
    ReplayServer.start(),
  ]);
  context.onTestFinished(async () => {
    await Promise.all([spark.close(), backup.close(), codex.close()]);
  });
  const gateway = await startRoutedGateway(configToml({ spark, backup, codex }, router), options);
  context.onTestFinished(() => gateway.close());
  return { gateway, spark, backup, codex };
}

function configToml({ spark, backup, codex }: Omit<Route, "gateway">, router = ""): string {
  return `
default_model = "auto"

[models.spark]
engine = "openai-compatible"
base_url = "${spark.baseUrl}"
model = "gpt-5.3-codex-spark"

[models.spark-backup]
engine = "openai-compatible"
base_url = "${backup.baseUrl}"
model = "gpt-5.3-codex-spark"

[models.codex]
engine = "openai-compatible"
base_url = "${codex.baseUrl}"
model = "gpt-5.3-codex"

[routes]
fast = ["spark", "fast-backup", "deep"]
fast-backup = "spark-backup"
deep = "codex"

[router]
client_models = { "gpt-5.1-codex" = "fast" }
retry = { max_attempts = 2, base_delay_ms = 50, max_delay_ms = 400, max_retry_after_ms = 3000 }
breaker = { failures = 3, window_ms = 60000, open_ms = 30000 }
${router}`;
}

function record(fault: string, result: RoutedResponse): void {
  const routing = result.spark_timings?.routing;
  const path = routing?.attempts
    .map((attempt) => `${attempt.model}:${attempt.code ?? attempt.outcome}`)
    .join(" → ");
  faultTable.push(
    `| ${fault} | ${result.status}, served by ${routing?.model}; ${path} | ${result.elapsedMs} ms |`,
  );
}

afterAll(() => {
  // In the order the cases finished.
  process.stdout.write(
    `\n| fault | what Spark did | time |\n|---|---|---|\n${faultTable.join("\n")}\n`,
  );
});

describe.concurrent("routing through faults", () => {
  it(
    "a 429 with retry-after is retried on the same upstream after the time it asked for",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark, backup } = await startRoute(context);
      spark.respondInTurn(
        [
          {
            status: 429,
            headers: { "retry-after": "1" },
            contentType: "application/json",
            body: '{"error":{"message":"slow down"}}',
          },
        ],
        ok,
      );
      const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("429, retry-after: 1", result);
      expect(result.status).toBe("completed");
      expect(result.text).toBe(HELLO);
      const routing = result.spark_timings?.routing;
      expect(routing).toMatchObject({ model: "spark", retries: 1, fallbacks: 0 });
      expect(routing?.attempts.map((attempt) => attempt.code ?? attempt.outcome)).toEqual([
        "rate_limited",
        "ok",
      ]);
      expect(routing?.backoff_ms).toBeGreaterThanOrEqual(1_000);
      expect(result.elapsedMs).toBeGreaterThanOrEqual(1_000);
      expect(backup.chatRequests()).toHaveLength(0);
    },
  );

  it(
    "a retry-after over the cap falls back at once instead of waiting",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark } = await startRoute(context);
      spark.respondWith({ status: 429, headers: { "retry-after": "120" }, body: "busy" });
      const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("429, retry-after: 120 (over the 3 s cap)", result);
      expect(result.status).toBe("completed");
      expect(result.spark_timings?.routing).toMatchObject({
        model: "spark-backup",
        retries: 0,
        fallbacks: 1,
        backoff_ms: 0,
      });
      expect(result.elapsedMs).toBeLessThan(10_000);
    },
  );

  it(
    "repeated 500s use the retries, then fall back down the chain",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark } = await startRoute(context);
      const before = spark.chatRequests().length;
      spark.respondWith({
        status: 500,
        contentType: "application/json",
        body: '{"error":{"message":"boom"}}',
      });
      const result = await createResponse(gateway.url, {
        model: "gpt-5.1-codex",
        input: "Say hello.",
      });
      record("500 on every try", result);
      expect(result.status).toBe("completed");
      expect(result.text).toBe(HELLO);
      expect(result.spark_timings?.routing).toMatchObject({
        model: "spark-backup",
        retries: 1,
        fallbacks: 1,
      });
      expect(spark.chatRequests().length - before).toBe(2);
      expect(result.createdRoute?.reason).toMatch(
        /gpt-5\.1-codex is mapped to fast; route fast → spark → spark-backup → codex/,
      );
    },
  );

  it(
    "a stall before headers times the attempt out and falls back",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark, backup } = await startRoute(context);
      spark.respondWith(stallBeforeHeaders);
      backup.respondWith(stallBeforeHeaders);
      const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("stall before headers (fast and backup)", result);
      expect(result.status).toBe("completed");
      expect(result.spark_timings?.routing?.model).toBe("codex");
      expect(
        result.spark_timings?.routing?.attempts.map((attempt) => attempt.code ?? attempt.outcome),
      ).toEqual([
        "upstream_timeout",
        "upstream_timeout",
        "upstream_timeout",
        "upstream_timeout",
        "ok",
      ]);
    },
  );

  it(
    "a reset before any output is retried; the retry's output arrives once",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark } = await startRoute(context);
      spark.respondInTurn([{ fixture: "openai-text.sse", destroyAfterBytes: 0 }], ok);
      const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("connection reset before output", result);
      expect(result.status).toBe("completed");
      expect(result.text).toBe(HELLO);
      expect(result.spark_timings?.routing).toMatchObject({ model: "spark", retries: 1 });
    },
  );

  it(
    "a reset after the first tokens is never retried: no duplicate output",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark, backup } = await startRoute(context);
      const before = spark.chatRequests().length;
      const backupBefore = backup.chatRequests().length;
      spark.respondWith({ fixture: "openai-text.sse", destroyAfterBytes: 1_200 });
      const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("connection reset mid-stream", result);
      expect(result.status).toBe("failed");
      expect(result.error?.spark_code).toBe("network_error");
      expect(result.text.length).toBeGreaterThan(0);
      expect(HELLO.startsWith(result.text)).toBe(true);
      expect(spark.chatRequests().length - before).toBe(1);
      expect(backup.chatRequests()).toHaveLength(backupBefore);
      expect(result.spark_timings?.routing).toMatchObject({ retries: 0, fallbacks: 0 });
    },
  );

  it(
    "the deadline ends a request whose every upstream stalls",
    { timeout: promptly },
    async (context) => {
      const { gateway, spark, backup, codex } = await startRoute(context, "deadline_ms = 1500\n", {
        firstByteMs: 5_000,
      });
      for (const server of [spark, backup, codex]) server.respondWith(stallBeforeHeaders);
      const result = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("every upstream stalls (deadline 1500 ms)", result);
      expect(result.status).toBe("failed");
      expect(result.error?.spark_code).toBe("upstream_timeout");
      expect(result.error?.message).toMatch(/1500 ms deadline passed/);
      expect(result.spark_timings?.routing?.deadline_exceeded).toBe(true);
      expect(result.elapsedMs).toBeGreaterThanOrEqual(1_500);
      expect(result.elapsedMs).toBeLessThan(10_000);
      expect(await readMetrics(gateway.url)).toMatch(/^spark_router_deadline_exceeded_total 1$/m);
    },
  );

  it(
    "the breaker opens after repeated failures, skips the upstream, and closes after a good probe",
    { timeout: promptly },
    async (context) => {
      let now = 0;
      const { gateway, spark } = await startRoute(context, "", { now: () => now });
      spark.respondWith({ status: 503, body: "down" });
      const first = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      const second = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      expect(first.spark_timings?.routing?.model).toBe("spark-backup");
      // 2 failures, then the third opens it (failures = 3) on the second request's first try.
      expect(second.spark_timings?.routing?.attempts[0]?.code).toBe("upstream_error");
      expect(gateway.router.breakerState("spark")).toBe("open");
      const sparkRequests = spark.chatRequests().length;
      const skipped = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("upstream down (503), circuit open", skipped);
      expect(skipped.spark_timings?.routing?.attempts[0]).toMatchObject({
        model: "spark",
        outcome: "skipped",
        code: "circuit_open",
      });
      expect(spark.chatRequests()).toHaveLength(sparkRequests);
      expect(await readMetrics(gateway.url)).toMatch(
        /^spark_router_breaker_state\{upstream="spark"\} 2$/m,
      );

      spark.respondWith(ok);
      now += 30_000;
      expect(gateway.router.breakerState("spark")).toBe("half-open");
      const probe = await createResponse(gateway.url, { model: "fast", input: "Say hello." });
      record("half-open probe after open_ms", probe);
      expect(probe.spark_timings?.routing?.model).toBe("spark");
      expect(gateway.router.breakerState("spark")).toBe("closed");
      const metrics = await readMetrics(gateway.url);
      expect(metrics).toMatch(/^spark_router_breaker_state\{upstream="spark"\} 0$/m);
      expect(metrics).toMatch(
        /^spark_router_breaker_transitions_total\{upstream="spark",state="open"\} 1$/m,
      );
      expect(metrics).toMatch(
        /^spark_router_fallbacks_total\{from="spark",to="spark-backup"\} [1-9]/m,
      );
      expect(metrics).toMatch(/^spark_router_retries_total\{model="spark"\} [1-9]/m);
    },
  );
});
