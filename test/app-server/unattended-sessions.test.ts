// Live sessions do not pile up: one left idle with no client attached is closed after the
// configured time (its log stays), a watched one is kept, and resuming it keeps its start time.
import { afterEach, describe, expect, it } from "vitest";
import type { AppServer } from "../../src/app-server/app-server.ts";
import type { AgentProtocolClient, SessionSummary } from "../../src/protocol/agent/index.ts";
import {
  connectInProcess,
  createScriptedWorkspace,
  EventRecorder,
  startInProcessAppServer,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";

let workspace: ScriptedWorkspace;
let appServer: AppServer | undefined;
const clients: AgentProtocolClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await appServer?.close();
  appServer = undefined;
  workspace.remove();
});

function connect(): AgentProtocolClient {
  if (appServer === undefined) throw new Error("no app server");
  const client = connectInProcess(appServer);
  clients.push(client);
  return client;
}

async function listed(client: AgentProtocolClient, sessionId: string): Promise<SessionSummary> {
  const { sessions } = await client.request("session/list", {});
  const found = sessions.find((session) => session.sessionId === sessionId);
  if (found === undefined) throw new Error(`session ${sessionId} is not listed`);
  return found;
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("condition not reached in 4 s");
}

describe("unattended live sessions", () => {
  it("closes an idle session nobody is attached to, keeps a watched one, and resumes with the original start time", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("idle", [{ text: "Done." }, { text: "Again." }]);
    appServer = await startInProcessAppServer(workspace, model, { unattendedSessionMs: 100 });
    const lister = connect();
    const owner = connect();
    const ownerEvents = new EventRecorder(owner);
    const { session: left } = await owner.request("session/start", { cwd: workspace.root });
    await owner.request("turn/start", { sessionId: left.sessionId, text: "Go." });
    await ownerEvents.turnFinished();
    const watcher = connect();
    const { session: watched } = await watcher.request("session/start", { cwd: workspace.root });

    owner.close();
    await until(async () => !(await listed(lister, left.sessionId)).live);
    // The watched session outlived several sweeps of the same age.
    expect((await listed(lister, watched.sessionId)).live).toBe(true);

    const returning = connect();
    const returningEvents = new EventRecorder(returning);
    const attached = await returning.request("session/attach", { sessionId: left.sessionId });
    expect(attached.session.startedAt).toBe(left.startedAt);
    await returning.request("turn/start", { sessionId: left.sessionId, text: "Once more." });
    await returningEvents.turnFinished();
    expect((await listed(lister, left.sessionId)).live).toBe(true);
  });
});
