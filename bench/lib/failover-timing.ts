// Failover time of a response in flight: two real `spark serve` replicas share a Redis, the one
// generating a paced response is killed with SIGKILL, and a client that sees its socket close
// resumes on the other at once; measured from the kill to the first delta the survivor sends.
import { RawWsClient } from "../../test/gateway/support/raw-ws-client.ts";
import { createReplicaFleet } from "../../test/gateway/support/serve-replicas.ts";

const KEY = "sk-bench-failover";

/** Milliseconds from SIGKILL to the first resumed delta, once per run. */
export async function measureFailover(
  redisUrl: string,
  leaseMs: number,
  runs: number,
): Promise<number[]> {
  const fleet = createReplicaFleet(
    `[serve]\napi_keys = ["${KEY}"]\nreplica_lease_ms = ${leaseMs}\n`,
  );
  const words = Array.from({ length: 400 }, (_, index) => `w${index}`).join(" ");
  const script = fleet.script(
    "paced",
    Array.from({ length: runs * 2 }, () => ({ text: words, delayMs: 10 })),
  );
  const args = ["--store", redisUrl, "--model", `script:${script}`];
  const headers = { authorization: `Bearer ${KEY}` };
  const results: number[] = [];
  try {
    const survivor = await fleet.start(args);
    for (let run = 0; run < runs; run += 1) {
      const generating = await fleet.start(args);
      const first = await RawWsClient.connect(generating.url, headers);
      first.send({ type: "response.create", model: "script", input: "Go." });
      await first.waitFor(
        (event) => event.type === "response.output_text.delta" && (event.sequence_number ?? 0) > 40,
      );
      await generating.kill("SIGKILL");
      const killedAt = performance.now();
      const lastSeen = Math.max(...first.events.map((event) => event.sequence_number ?? -1));
      const responseId = String((first.events[0]?.response as { id: string }).id);
      const second = await RawWsClient.connect(survivor.url, headers);
      second.send({
        type: "response.resume",
        response_id: responseId,
        last_sequence_number: lastSeen,
      });
      await second.waitFor((event) => event.type === "response.output_text.delta", 0, 30_000);
      results.push(performance.now() - killedAt);
      await second.finalEvent(0, 60_000);
      first.socket.close();
      second.socket.close();
    }
  } finally {
    await fleet.stopAll();
  }
  return results;
}
