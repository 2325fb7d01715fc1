// Session affinity across a pool of two real `spark serve` processes (scripted engines), fronted by
// a third `spark serve` whose model is the pool: every session stays on one replica; SIGKILL that
// replica while it streams and the streaming turn ends with a clear error and no repeated output,
// while the session's next turn continues on the other replica with no error.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SparkServeProcess } from "../clients/support/spark-serve-process.ts";
import { createResponse, type RoutedResponse } from "./routed-gateway.ts";
import {
  answeredBy as tagOf,
  POOL_WORDS as WORDS,
  REPLICA_TAGS as TAGS,
  startSparkServePool,
  type SparkServePool,
} from "./spark-serve-pool.ts";

const SESSIONS = Array.from({ length: 8 }, (_, index) => `session-${index}`);
const CHAIN = "chain";

let pool: SparkServePool;
let replicas: SparkServeProcess[];
let front: SparkServeProcess;
/** The chained session continues from its last response. */
let chainTail: string | undefined;

beforeAll(async () => {
  pool = await startSparkServePool();
  ({ replicas, front } = pool);
}, 60_000);

afterAll(async () => {
  await pool?.close();
});

function answeredBy(result: RoutedResponse): string | undefined {
  return tagOf(result.text);
}

async function turn(
  session: string,
  index: number,
  onFirstDelta?: () => Promise<void>,
): Promise<RoutedResponse> {
  const input = `${session}: turn ${index}`;
  const body =
    session !== CHAIN
      ? { input, prompt_cache_key: session }
      : { input, ...(chainTail === undefined ? {} : { previous_response_id: chainTail }) };
  const result = await createResponse(
    front.url,
    body,
    onFirstDelta === undefined ? {} : { onFirstDelta },
  );
  if (session === CHAIN && result.status === "completed") chainTail = result.id;
  return result;
}

/** One turn of every session at once; returns who answered each. */
async function everySession(index: number): Promise<Map<string, RoutedResponse>> {
  const sessions = [...SESSIONS, CHAIN];
  const results = await Promise.all(sessions.map(async (session) => turn(session, index)));
  return new Map(sessions.map((session, position) => [session, results[position]!]));
}

/** Chat completions a replica's own request log shows it served. */
function servedInLog(replica: SparkServeProcess): number {
  return replica.log().match(/ POST \/v1\/chat\/completions 200 /g)?.length ?? 0;
}

function completedInMetrics(metrics: string): number {
  const match =
    /^spark_gateway_responses_total\{transport="http",status="completed"\} (\d+)$/m.exec(metrics);
  return Number(match?.[1] ?? 0);
}

describe("a pool of two spark serve processes", () => {
  it(
    "keeps sessions on their replica; a replica killed mid-stream fails that turn once, and the session continues on the other",
    { timeout: 60_000 },
    async () => {
      const home = new Map<string, string>();
      for (const index of [1, 2]) {
        for (const [session, result] of await everySession(index)) {
          expect(result.status).toBe("completed");
          expect(result.error).toBeNull();
          const replica = answeredBy(result);
          expect(replica).toBeDefined();
          expect(home.get(session) ?? replica).toBe(replica);
          home.set(session, replica!);
        }
      }
      // Each replica's own log and /metrics agree with who answered.
      for (const [position, tag] of TAGS.entries()) {
        const replica = replicas[position]!;
        const sessions = [...home.values()].filter((answered) => answered === tag).length;
        expect(servedInLog(replica)).toBe(sessions * 2);
        expect(completedInMetrics(await replica.metrics())).toBe(sessions * 2);
      }

      const victim = home.get(CHAIN)!;
      const victimIndex = TAGS.indexOf(victim as (typeof TAGS)[number]);
      const survivor = replicas[1 - victimIndex]!;
      const survivorTag = TAGS[1 - victimIndex]!;
      const survivorServed = servedInLog(survivor);

      const killed = await turn(CHAIN, 3, async () => replicas[victimIndex]!.kill());
      expect(killed.status).toBe("failed");
      expect(killed.error?.spark_code).toBe("network_error");
      expect(killed.error?.message).toMatch(/closed the connection unexpectedly/);
      // What streamed came from the killed replica only, once, and stopped short.
      expect(killed.text.startsWith(victim)).toBe(true);
      expect(`${victim} ${WORDS}`.startsWith(killed.text)).toBe(true);
      expect(killed.text.length).toBeLessThan(`${victim} ${WORDS}`.length);
      expect(killed.spark_timings?.routing).toMatchObject({ retries: 0, fallbacks: 0 });
      expect(servedInLog(survivor)).toBe(survivorServed);

      const next = await turn(CHAIN, 4);
      process.stdout.write(
        `\npool of processes: the turn after the kill: first token after ${next.spark_timings?.time_to_first_token_ms} ms, done after ${next.elapsedMs} ms, on ${answeredBy(next)}\n`,
      );
      expect(next.status).toBe("completed");
      expect(next.error).toBeNull();
      expect(answeredBy(next)).toBe(survivorTag);
      expect(next.text).toBe(`${survivorTag} ${WORDS}`);

      for (const [session, result] of await everySession(5)) {
        expect(result.status, session).toBe("completed");
        expect(answeredBy(result), session).toBe(survivorTag);
      }

      // The front's probes see the dead replica: out of rotation in /metrics.
      const victimUrl = pool.baseUrlOf(replicas[victimIndex]!);
      const down = `spark_router_replica_up{model="pool",replica="${victimUrl}"} 0`;
      let metrics = await front.metrics();
      while (!metrics.includes(down)) {
        await sleep(50);
        metrics = await front.metrics();
      }
      expect(metrics).toContain(
        `spark_router_replica_requests_total{model="pool",replica="${pool.baseUrlOf(survivor)}"} ${servedInLog(survivor)}`,
      );
    },
  );
});
