// The faults of docs/routing-faults.md, each played once against the real gateway and router over
// loopback fake upstreams (ReplayServer), and the pool faults against real `spark serve` replicas:
// what the client saw, what Spark did (from `spark_timings.routing`) and how long it took.
import { setTimeout as sleep } from "node:timers/promises";
import { ReplayServer } from "../../test/openai-compatible/replay-server.ts";
import {
  createResponse,
  readMetrics,
  startRoutedGateway,
  type RoutedGateway,
  type RoutedResponse,
} from "../../test/router/routed-gateway.ts";
import {
  answeredBy,
  REPLICA_TAGS,
  startSparkServePool,
} from "../../test/router/spark-serve-pool.ts";

export interface FaultRow {
  fault: string;
  did: string;
  client: string;
  ms: number;
}

/** Upstream timeouts (connect, first byte, idle) of every model in these runs. */
export const UPSTREAM_TIMEOUT_MS = 400;
const ok = { fixture: "openai-text.sse" };
const stall = { fixture: "openai-text.sse", headersDelayMs: 30_000 };
const ask = { model: "fast", input: "Say hello." };

export const CHAIN_SETTINGS = `retry = { max_attempts = 2, base_delay_ms = 50, max_delay_ms = 400, max_retry_after_ms = 3000 }
breaker = { failures = 3, window_ms = 60000, open_ms = 30000 }`;

function chainToml(spark: string, backup: string, codex: string, router = ""): string {
  const model = (name: string, url: string): string =>
    `[models.${name}]\nengine = "openai-compatible"\nbase_url = "${url}"\nmodel = "m"\n`;
  return `${model("spark", spark)}${model("spark-backup", backup)}${model("codex", codex)}
[routes]
fast = ["spark", "spark-backup", "codex"]
[router]
${CHAIN_SETTINGS}
${router}`;
}

/** "spark rate_limited (3 ms) → wait 1000 ms → spark ok (9 ms)" from the response's routing. */
function describeRouting(result: RoutedResponse): string {
  const routing = result.spark_timings?.routing;
  if (routing === undefined) return "(no routing timings)";
  const waits = routing.retries > 0 ? routing.backoff_ms / routing.retries : 0;
  const steps: string[] = [];
  for (const [index, attempt] of routing.attempts.entries()) {
    const previous = routing.attempts[index - 1];
    if (previous !== undefined && previous.model === attempt.model && attempt.outcome !== "skipped")
      steps.push(`wait ${Math.round(waits)} ms`);
    const what = attempt.code ?? attempt.outcome;
    steps.push(
      attempt.outcome === "skipped"
        ? `${attempt.model} skipped (${what})`
        : `${attempt.model} ${what} (${Math.round(attempt.duration_ms)} ms)`,
    );
  }
  return steps.join(" → ") + (routing.deadline_exceeded ? "; deadline passed" : "");
}

function describeClient(result: RoutedResponse): string {
  const error = result.error === null ? "" : `: ${result.error.spark_code}`;
  const text = result.text === "" ? "no text" : `text ${JSON.stringify(result.text)}`;
  return `${result.status}${error}, ${text}`;
}

function row(fault: string, result: RoutedResponse): FaultRow {
  return {
    fault,
    did: describeRouting(result),
    client: describeClient(result),
    ms: result.elapsedMs,
  };
}

/** The fallback-chain faults: spark (primary) → spark-backup → codex. */
export async function chainFaults(): Promise<FaultRow[]> {
  const [spark, backup, codex, gone] = await Promise.all(
    Array.from({ length: 4 }, async () => ReplayServer.start()),
  );
  if (spark === undefined || backup === undefined || codex === undefined || gone === undefined)
    throw new Error("servers did not start");
  const refusedUrl = gone.baseUrl;
  await gone.close();
  const rows: FaultRow[] = [];
  let gateway: RoutedGateway | undefined;
  let now = 0;
  const play = async (
    fault: string,
    arrange: () => void,
    options: { toml?: string; clock?: boolean } = {},
  ): Promise<RoutedResponse> => {
    gateway = await startRoutedGateway(
      options.toml ?? chainToml(spark.baseUrl, backup.baseUrl, codex.baseUrl),
      { firstByteMs: UPSTREAM_TIMEOUT_MS, ...(options.clock === true ? { now: () => now } : {}) },
    );
    arrange();
    const result = await createResponse(gateway.url, ask);
    rows.push(row(fault, result));
    await gateway.close();
    gateway = undefined;
    for (const server of [spark, backup, codex]) server.respondWith(ok);
    return result;
  };
  const error = (status: number, headers: Record<string, string> = {}) => ({
    status,
    headers,
    contentType: "application/json",
    body: '{"error":{"message":"fault"}}',
  });

  try {
    await play("429 with retry-after: 1", () =>
      spark.respondInTurn([error(429, { "retry-after": "1" })], ok),
    );
    await play("429 with retry-after: 120 (over max_retry_after_ms)", () =>
      spark.respondWith(error(429, { "retry-after": "120" })),
    );
    await play("500 on every try", () => spark.respondWith(error(500)));
    await play("stall before headers", () => spark.respondWith(stall));
    await play("stall mid-stream (after the first tokens)", () =>
      spark.respondWith({ fixture: "openai-text.sse", stallAfterBytes: 1_200 }),
    );
    await play("connection reset before any output", () =>
      spark.respondInTurn([{ fixture: "openai-text.sse", destroyAfterBytes: 0 }], ok),
    );
    await play("connection reset mid-stream", () =>
      spark.respondWith({ fixture: "openai-text.sse", destroyAfterBytes: 1_200 }),
    );
    await play("connection refused (primary down)", () => undefined, {
      toml: chainToml(refusedUrl, backup.baseUrl, codex.baseUrl),
    });
    await play(
      "every upstream stalls; deadline_ms = 1500",
      () => {
        for (const server of [spark, backup, codex]) server.respondWith(stall);
      },
      { toml: chainToml(spark.baseUrl, backup.baseUrl, codex.baseUrl, "deadline_ms = 1500") },
    );
    rows.push(
      ...(await breakerFaults(
        spark,
        backup,
        codex,
        () => now,
        (ms) => (now += ms),
      )),
    );
  } finally {
    await gateway?.close();
    await Promise.all([spark.close(), backup.close(), codex.close()]);
  }
  return rows;
}

/** 503s until the breaker opens, a request that skips it, then a half-open probe once open_ms passed. */
async function breakerFaults(
  spark: ReplayServer,
  backup: ReplayServer,
  codex: ReplayServer,
  now: () => number,
  advance: (ms: number) => void,
): Promise<FaultRow[]> {
  const gateway = await startRoutedGateway(
    chainToml(spark.baseUrl, backup.baseUrl, codex.baseUrl),
    {
      firstByteMs: UPSTREAM_TIMEOUT_MS,
      now,
    },
  );
  try {
    spark.respondWith({ status: 503, body: "down" });
    const opening = await createResponse(gateway.url, ask);
    const opened = await createResponse(gateway.url, ask);
    const skipped = await createResponse(gateway.url, ask);
    spark.respondWith(ok);
    advance(30_000); // open_ms, on the breakers' clock
    const probe = await createResponse(gateway.url, ask);
    const state = gateway.router.breakerState("spark");
    return [
      row("503: first request (2 failures)", opening),
      row("503: second request, the 3rd failure opens the breaker", opened),
      row("breaker open: the next request skips spark", skipped),
      {
        ...row("after open_ms: half-open probe succeeds", probe),
        did: `${describeRouting(probe)}; breaker ${state}`,
      },
    ];
  } finally {
    spark.respondWith(ok);
    await gateway.close();
  }
}

/** A two-replica pool of ReplayServers: a replica gone (passive) and one failing its probe (active). */
export async function poolFaults(): Promise<FaultRow[]> {
  const rows: FaultRow[] = [];
  for (const active of [false, true]) {
    const [first, second] = await Promise.all([ReplayServer.start(), ReplayServer.start()]);
    if (first === undefined || second === undefined) throw new Error("servers did not start");
    const firstUrl = first.baseUrl;
    const gateway = await startRoutedGateway(
      `default_model = "vllm"
[models.vllm]
engine = "openai-compatible"
base_urls = ["${first.baseUrl}", "${second.baseUrl}"]
model = "m"
health_check_interval_ms = ${active ? 100 : 0}
health_check_timeout_ms = ${UPSTREAM_TIMEOUT_MS}
`,
      { firstByteMs: UPSTREAM_TIMEOUT_MS },
    );
    try {
      await gateway.router.load("vllm");
      // A session whose replica is `first`: find one by asking.
      let session = "";
      for (let index = 0; session === ""; index += 1) {
        await createResponse(gateway.url, { input: "hi", prompt_cache_key: `s${index}` });
        if (first.chatRequests().length > 0) session = `s${index}`;
      }
      if (active) {
        first.modelsStatus = 503;
        const down = new RegExp(`spark_router_replica_up\\{[^}]*"${first.baseUrl}"\\} 0`);
        while (!down.test(await readMetrics(gateway.url))) await sleep(20);
      } else await first.close();
      const before = first.chatRequests().length;
      const result = await createResponse(gateway.url, { input: "hi", prompt_cache_key: session });
      const hitDead = first.chatRequests().length > before;
      const breaker = new RegExp(
        `spark_router_replica_breaker_state\\{[^}]*"${firstUrl}"\\} (\\d)`,
      ).exec(await readMetrics(gateway.url))?.[1];
      rows.push({
        fault: active
          ? "pool replica fails its health probe (503 on /models)"
          : "pool replica gone (connection refused), health checks off",
        did: active
          ? `taken out by the probe before the request; served by the other replica${hitDead ? " (but the failing replica was tried first)" : ""}`
          : `tried the session's replica (refused), then the other; the dead replica's breaker is now ${breaker === "2" ? "open" : `in state ${breaker}`}`,
        client: describeClient(result),
        ms: result.elapsedMs,
      });
    } finally {
      await gateway.close();
      await Promise.all([first.close().catch(() => undefined), second.close()]);
    }
  }
  return rows;
}

/** Real `spark serve` replicas: the session's replica SIGKILLed mid-stream, then its next turn. */
export async function killedReplicaFaults(): Promise<FaultRow[]> {
  const pool = await startSparkServePool();
  try {
    const session = { input: "hi", prompt_cache_key: "session" };
    const first = await createResponse(pool.front.url, session);
    const tag = answeredBy(first.text);
    const victim = tag === undefined ? undefined : pool.replicas[REPLICA_TAGS.indexOf(tag)];
    const killed = await createResponse(pool.front.url, session, {
      onFirstDelta: async () => victim?.kill(),
    });
    const next = await createResponse(pool.front.url, session);
    const ttft = next.spark_timings?.time_to_first_token_ms;
    const victimUrl = victim === undefined ? "" : pool.baseUrlOf(victim);
    const victimBreaker = new RegExp(
      `spark_router_replica_breaker_state\\{[^}]*"${victimUrl}"\\} (\\d)`,
    ).exec(await pool.front.metrics())?.[1];
    return [
      {
        fault: "pool replica process SIGKILLed while streaming",
        did: `${describeRouting(killed)}; not retried (output had reached the client)`,
        client: `${killed.status}: ${killed.error?.spark_code} "${killed.error?.message}", text ${JSON.stringify(killed.text)} (streamed before the kill, once)`,
        ms: killed.elapsedMs,
      },
      {
        fault: "that session's next turn",
        did: `served by ${answeredBy(next.text)}; the killed replica's breaker: ${victimBreaker === "2" ? "open" : `state ${victimBreaker}`}`,
        client: `${describeClient({ ...next, text: next.text.split(" ").slice(0, 2).join(" ") + " …" })}; first token after ${Math.round(ttft ?? 0)} ms`,
        ms: next.elapsedMs,
      },
    ];
  } finally {
    await pool.close();
  }
}
