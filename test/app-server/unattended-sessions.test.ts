// Live sessions do not pile up: one left idle with no client attached is closed after the
// configured time (its log stays), a watched one is kept, and resuming it keeps its start time.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentProtocolClient, SessionSummary } from "../../src/protocol/agent/index.ts";
import {
  createScriptedWorkspace,
  EventRecorder,
  startInProcessHarness,
  type InProcessHarness,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";

let workspace: ScriptedWorkspace;
let harness: InProcessHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

async function listed(client: AgentProtocolClient, sessionId: string): Promise<SessionSummary> {
  const { sessions } = await client.request("session/list", {});
  const found = sessions.find((session) => session.sessionId === sessionId);
  if (found === undefined) throw new Error(`session ${sessionId} is not listed`);
  return found;
}

describe("unattended live sessions", () => {
  it("closes an idle session nobody is attached to, keeps a watched one, and resumes with the original start time", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("idle", [{ text: "Done." }, { text: "Again." }]);
    harness = await startInProcessHarness(workspace, model, { unattendedSessionMs: 100 });
    const lister = harness.connect();
    const owner = harness.connect();
    const ownerEvents = new EventRecorder(owner);
    const { session: left } = await owner.request("session/start", { cwd: workspace.root });
    await owner.request("turn/start", { sessionId: left.sessionId, text: "Go." });
    await ownerEvents.turnFinished();
    const watcher = harness.connect();
    const { session: watched } = await watcher.request("session/start", { cwd: workspace.root });

    owner.close();
    await vi.waitFor(async () => expect((await listed(lister, left.sessionId)).live).toBe(false), {
      timeout: 4000,
      interval: 20,
    });
    // The watched session outlived several sweeps of the same age.
    expect((await listed(lister, watched.sessionId)).live).toBe(true);

    const returning = harness.connect();
    const returningEvents = new EventRecorder(returning);
    const attached = await returning.request("session/attach", { sessionId: left.sessionId });
    expect(attached.session.startedAt).toBe(left.startedAt);
    await returning.request("turn/start", { sessionId: left.sessionId, text: "Once more." });
    await returningEvents.turnFinished();
    expect((await listed(lister, left.sessionId)).live).toBe(true);
  });
});
