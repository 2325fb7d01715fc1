// Agent sessions per tenant under `spark serve --workers 2`, with the primary's store and with a
// real redis-server: each worker holds its own live sessions and all share SPARK_HOME's session
// logs, so a connection of key B landing on the worker that runs A's session, and one landing on
// the other worker (which would resume A's session from its log), must both answer as for a
// random id, and A's pending command must wait for A.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentProtocolClient, webSocketTransport } from "../../src/protocol/agent/index.ts";
import { redisMissingReason, startRedisServer, type RedisServer } from "../support/redis-server.ts";
import { createReplicaFleet, type ReplicaFleet } from "../gateway/support/serve-replicas.ts";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import { EventRecorder } from "./support/app-server-harness.ts";
import { openSocket } from "./support/serve-harness.ts";
import { probeForeignAndRandom } from "./support/tenant-probes.ts";

const KEY_A = "sk-workers-tenant-a";
const KEY_B = "sk-workers-tenant-b";
/** Connections B opens at most while looking for both workers (the cluster hands them in turn). */
const MOST_CONNECTIONS = 8;
const redisMissing = redisMissingReason();
if (redisMissing !== undefined) console.warn(`Skipping the Redis case: ${redisMissing}.`);

let fleet: ReplicaFleet | undefined;
let redis: RedisServer | undefined;
/** The repository sessions work in: apart from SPARK_HOME, which commands never see. */
let workspace: AgentWorkspace | undefined;
const clients: AgentProtocolClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await fleet?.stopAll();
  fleet = undefined;
  await redis?.stop();
  redis = undefined;
  workspace?.remove();
  workspace = undefined;
});

async function connect(agentUrl: string, apiKey: string): Promise<AgentProtocolClient> {
  const socket = await openSocket(agentUrl, { headers: { authorization: `Bearer ${apiKey}` } });
  const client = new AgentProtocolClient(webSocketTransport(socket));
  clients.push(client);
  return client;
}

async function checkAcrossWorkers(storeArguments: string[]): Promise<void> {
  fleet = createReplicaFleet(`[serve]\napi_keys = ["${KEY_A}", "${KEY_B}"]\n`);
  workspace = createAgentWorkspace();
  const root = workspace.root;
  const script = fleet.script("tenant-a", [
    {
      text: "Writing the marker.",
      toolCalls: [{ name: "run_command", arguments: { command: "echo ran > marker.txt" } }],
    },
    { text: "Done." },
  ]);
  const serve = await fleet.start([
    "--workers",
    "2",
    "--model",
    `script:${script}`,
    "--workspace-root",
    root,
    ...storeArguments,
  ]);
  const agentUrl = `${serve.url.replace(/^http/, "ws")}/v1/agent`;

  const clientA = await connect(agentUrl, KEY_A);
  const recorderA = new EventRecorder(clientA);
  const { session } = await clientA.request("session/start", { cwd: root });
  const sessionId = session.sessionId;
  await clientA.request("turn/start", { sessionId, text: "Write the marker." });
  const pending = await recorderA.next("approval-requested");

  // B's own session tells which worker a connection landed on: live on the one that started it.
  const firstB = await connect(agentUrl, KEY_B);
  const { session: ownB } = await firstB.request("session/start", { cwd: root });
  const workersSeen = new Set<boolean>();
  for (let index = 0; index < MOST_CONNECTIONS && workersSeen.size < 2; index += 1) {
    const clientB = index === 0 ? firstB : await connect(agentUrl, KEY_B);
    const { sessions } = await clientB.request("session/list", {});
    expect(sessions.map((listed) => listed.sessionId)).toEqual([ownB.sessionId]);
    workersSeen.add(sessions[0]?.live === true);
    const { foreign, random } = await probeForeignAndRandom(clientB, sessionId, pending.approvalId);
    expect(foreign).toEqual(random);
    expect(foreign[0]).toMatchObject({ error: { code: "session_not_found" } });
  }
  expect(workersSeen.size).toBe(2);
  expect(existsSync(path.join(root, "marker.txt"))).toBe(false);

  // A's list still shows it, and its approval runs the command.
  const { sessions } = await clientA.request("session/list", {});
  expect(sessions.map((listed) => listed.sessionId)).toEqual([sessionId]);
  await clientA.request("approval/respond", {
    sessionId,
    approvalId: pending.approvalId,
    decision: "approve",
  });
  await recorderA.turnFinished();
  expect(existsSync(path.join(root, "marker.txt"))).toBe(true);
}

describe("spark serve --workers 2: agent sessions per tenant", () => {
  it("keeps A's session from B on both workers (the primary's store)", async () => {
    await checkAcrossWorkers([]);
  }, 120_000);

  it.skipIf(redisMissing !== undefined)(
    "keeps A's session from B on both workers (a redis-server store)",
    async () => {
      redis = await startRedisServer();
      await checkAcrossWorkers(["--store", redis.url]);
    },
    120_000,
  );
});
