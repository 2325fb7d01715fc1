// Operating a real `spark serve` (issue 39, item 8): SIGHUP re-reads [serve] api_keys and the
// model table (a removed key and model stop working for new requests, a response under way with
// the removed key finishes, and it is logged); every request log line names the replica and the
// tenant (a hash, never the key); with Redis hung (SIGSTOP), repeated warnings are written once per
// interval ([serve] log_repeat_interval_seconds, 1 s here) with a count, and
// spark_gateway_store_failures_total counts what failed.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { createReplicaFleet, type ReplicaFleet } from "./support/serve-replicas.ts";

const KEPT_KEY = "sk-ops-kept-0123456789";
const REMOVED_KEY = "sk-ops-removed-0123456789";
const redisMissing = redisMissingReason();

function configToml(keys: string[], models: Record<string, string>): string {
  return (
    `default_model = "first"\n[serve]\napi_keys = ${JSON.stringify(keys)}\n` +
    Object.entries(models)
      .map(
        ([name, file]) => `[models.${name}]\nengine = "script"\npath = ${JSON.stringify(file)}\n`,
      )
      .join("")
  );
}

async function post(url: string, key: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The operator log's request lines (not the banner's). */
function requestLines(log: string): string[] {
  return log.split("\n").filter((line) => /^\d{4}-\d\d-\d\dT\S+ /.test(line));
}

describe("operating spark serve", () => {
  const fleets: ReplicaFleet[] = [];
  let redis: RedisServer | undefined;
  afterAll(async () => {
    for (const fleet of fleets) await fleet.stopAll();
    await redis?.stop();
  });

  it("SIGHUP re-reads api_keys and models: removed ones stop for new requests, one under way finishes; lines name replica and tenant", async () => {
    const fleet = createReplicaFleet("");
    fleets.push(fleet);
    const slow = fleet.script("slow", [
      { text: "one two three four five six seven eight", delayMs: 150 },
      { text: "fine" },
      { text: "fine" },
    ]);
    const second = fleet.script("second", [{ text: "second" }]);
    const third = fleet.script("third", [{ text: "third" }]);
    const configFile = path.join(fleet.home, "config.toml");
    writeFileSync(
      configFile,
      configToml([KEPT_KEY, REMOVED_KEY], { first: slow, second, third: second }),
    );
    const serve = await fleet.start([]);

    // Under way with the key about to be removed.
    const underWay = await post(serve.url, REMOVED_KEY, { input: "long", stream: true });
    expect(underWay.status).toBe(200);
    const reader = underWay.body?.getReader();
    const decoder = new TextDecoder();
    let streamed = "";
    const first = await reader?.read();
    streamed += decoder.decode(first?.value);

    writeFileSync(configFile, configToml([KEPT_KEY], { first: slow, third }));
    process.kill(serve.pid, "SIGHUP");
    await waitFor(() => /SIGHUP: api_keys: 1 \(removed: key-[0-9a-f]{24};/.test(serve.log), 10_000);
    expect(serve.log).toMatch(/models: removed second; added none; changed third/);

    expect((await post(serve.url, REMOVED_KEY, { input: "new" })).status).toBe(401);
    const removedModel = await post(serve.url, KEPT_KEY, { model: "second", input: "x" });
    expect(removedModel.status).toBe(404);
    const changedModel = await post(serve.url, KEPT_KEY, { model: "third", input: "x" });
    expect(changedModel.status).toBe(200);
    // The changed model serves from its new script.
    expect(JSON.stringify(await changedModel.json())).toContain('"text":"third"');

    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      streamed += decoder.decode(chunk.value);
    }
    expect(streamed).toMatch(/event: response\.completed/);

    // Every request line: this replica and a tenant hash; never a key.
    await waitFor(() => / model=first status=completed/.test(serve.log), 5000);
    const lines = requestLines(serve.log);
    const requests = lines.filter((line) => / POST \/v1\/responses | response resp_/.test(line));
    expect(requests.length, lines.join("\n")).toBeGreaterThanOrEqual(5);
    for (const line of requests) expect(line).toMatch(/ replica=\S+ tenant=(key-[0-9a-f]{24}|-) /);
    expect(requests.filter((line) => / tenant=key-/.test(line)).length).toBeGreaterThanOrEqual(4);
    expect(serve.log).not.toContain(KEPT_KEY);
    expect(serve.log).not.toContain(REMOVED_KEY);
  }, 60_000);

  it.skipIf(redisMissing !== undefined)(
    "a hung Redis: each repeated warning once per interval with a count, store failures counted",
    async () => {
      redis = await startRedisServer();
      const fleet = createReplicaFleet(
        `[serve]\napi_keys = ["${KEPT_KEY}"]\nlog_repeat_interval_seconds = 1\n`,
      );
      fleets.push(fleet);
      const script = fleet.script(
        "fine",
        Array.from({ length: 50 }, () => ({ text: "fine" })),
      );
      const serve = await fleet.start(["--store", redis.url, "--model", `script:${script}`]);
      process.kill(redis.pid ?? 0, "SIGSTOP");
      try {
        for (let index = 0; index < 8; index += 1)
          expect((await post(serve.url, KEPT_KEY, { input: `hung ${index}` })).status).toBe(200);
        const metrics = await (
          await fetch(`${serve.url}/metrics`, { headers: { authorization: `Bearer ${KEPT_KEY}` } })
        ).text();
        expect(metrics).toMatch(
          /spark_gateway_store_failures_total\{what="storing the response"\} 8/,
        );
        expect(metrics).toMatch(
          /spark_gateway_store_failures_total\{what="the per-key concurrency limit"\} \d+/,
        );
        // Once each, not once per request (8 of each before): the first occurrence is written,
        // the repeats are only counted, and a line at the interval's end says how many there
        // were. Every occurrence is counted once: the first line and the summaries' counts add up
        // to the 8 requests (a summary opens the next interval, so a batch that outlasts one
        // interval is split between two summaries, never written again line by line).
        const linesOf = (pattern: RegExp): string[] =>
          requestLines(serve.log).filter((line) => pattern.test(line));
        const repeatsIn = (lines: string[]): number =>
          lines.reduce(
            (sum, line) => sum + Number(/\(repeated (\d+) more times in 1 s\)$/.exec(line)?.[1]),
            0,
          );
        const limits = /per-key limits counted in this process only/;
        const notStored = /not stored/;
        expect(linesOf(limits).filter((line) => !line.includes("(repeated"))).toHaveLength(1);
        expect(linesOf(notStored).filter((line) => !line.includes("(repeated"))).toHaveLength(1);
        await waitFor(() => 1 + repeatsIn(linesOf(notStored).slice(1)) === 8, 5000).catch(() => {
          throw new Error(`not every repeat was counted:\n${serve.log}`);
        });
        expect(repeatsIn(linesOf(limits).slice(1))).toBeGreaterThan(0);
      } finally {
        process.kill(redis.pid ?? 0, "SIGCONT");
      }
    },
    60_000,
  );
});
