// Session affinity across a two-replica pool through the real gateway: every session sticks to one
// replica; when one replica dies mid-run its sessions continue on the other, and the other
// replica's sessions never move.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import { createResponse, startRoutedGateway, type RoutedGateway } from "./routed-gateway.ts";

const SESSIONS = Array.from({ length: 16 }, (_, index) => `session-${index}`);

let first: ReplayServer;
let second: ReplayServer;
let gateway: RoutedGateway;

beforeAll(async () => {
  [first, second] = await Promise.all([ReplayServer.start(), ReplayServer.start()]);
  gateway = await startRoutedGateway(`
default_model = "vllm"
[models.vllm]
engine = "openai-compatible"
base_urls = ["${first.baseUrl}", "${second.baseUrl}"]
model = "qwen"
`);
});
afterAll(async () => {
  await gateway.close();
  await second.close();
});

/** Which replica saw a session's requests, by the session name in the request bodies. */
function replicasOf(session: string): string[] {
  const seen: string[] = [];
  for (const [name, server] of [
    ["first", first],
    ["second", second],
  ] as const) {
    const hits = server.chatRequests().filter((request) => request.body.includes(`${session}:`));
    if (hits.length > 0) seen.push(`${name}×${hits.length}`);
  }
  return seen;
}

async function turn(session: string, index: number) {
  return createResponse(gateway.url, {
    input: `${session}: turn ${index}`,
    prompt_cache_key: session,
  });
}

describe("upstream pool", () => {
  it("keeps each session on one replica, and moves only the dead replica's sessions", async () => {
    for (let index = 0; index < 2; index += 1)
      for (const session of SESSIONS) expect((await turn(session, index)).status).toBe("completed");
    const before = new Map(SESSIONS.map((session) => [session, replicasOf(session)]));
    for (const replicas of before.values()) expect(replicas).toHaveLength(1);
    const onFirst = SESSIONS.filter((session) => before.get(session)?.[0]?.startsWith("first"));
    const onSecond = SESSIONS.filter((session) => before.get(session)?.[0]?.startsWith("second"));
    expect(onFirst.length).toBeGreaterThan(0);
    expect(onSecond.length).toBeGreaterThan(0);

    await first.close(); // the replica dies mid-run
    const failover = await turn(onFirst[0] ?? "", 2);
    process.stdout.write(
      `\npool failover: first request after a replica died took ${failover.elapsedMs} ms\n`,
    );
    expect(failover.status).toBe("completed");
    for (const session of SESSIONS) expect((await turn(session, 3)).status).toBe("completed");
    for (const session of onSecond) expect(replicasOf(session)).toEqual(["second×3"]);
    for (const session of onFirst)
      expect(replicasOf(session)).toEqual([
        "first×2",
        session === onFirst[0] ? "second×2" : "second×1",
      ]);
  });
});
