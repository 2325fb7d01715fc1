// Agent sessions belong to the API key that started them (issue 32, finding 5): `spark serve`'s
// wiring with two keys in [serve] api_keys and real WebSocket clients. Key B does not see key A's
// session in session/list or in session/updated, and every method naming it (attach, turns, an
// upload, undo, approvals, compact, files) answers B exactly as a random id does, live or logged
// after a restart; A's pending command does not run on B's word. Without keys, nothing changes.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentProtocolClient, SessionSummary } from "../../src/protocol/agent/index.ts";
import {
  createScriptedWorkspace,
  EventRecorder,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";
import { startServeHarness, type ServeHarness } from "./support/serve-harness.ts";
import { probeForeignAndRandom } from "./support/tenant-probes.ts";

const KEY_A = "tenant-a-key";
const KEY_B = "tenant-b-key";

let workspace: ScriptedWorkspace;
let harness: ServeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

/** A's model: an edit (so undo has something), then a command that writes marker.txt. */
function scriptForA(): string {
  workspace.write("src/greet.ts", 'export const greeting = "hello";\n');
  return workspace.script("tenant-a", [
    { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }] },
    {
      text: "Editing.",
      toolCalls: [
        {
          name: "edit",
          arguments: { path: "src/greet.ts", oldText: '"hello"', newText: '"hi"' },
        },
      ],
    },
    { text: "Edited." },
    {
      text: "Writing the marker.",
      toolCalls: [{ name: "run_command", arguments: { command: "echo ran > marker.txt" } }],
    },
    { text: "Done." },
  ]);
}

async function startWithKeys(model: string, apiKeys = [KEY_A, KEY_B]): Promise<ServeHarness> {
  harness = await startServeHarness(workspace, model, [workspace.root], apiKeys);
  return harness;
}

async function listedIds(client: AgentProtocolClient): Promise<string[]> {
  const { sessions } = await client.request("session/list", {});
  return sessions.map((session) => session.sessionId);
}

/** What one client hears about other sessions: summaries and events, by session id. */
function eavesdrop(client: AgentProtocolClient): { updated: SessionSummary[]; events: string[] } {
  const heard = { updated: [] as SessionSummary[], events: [] as string[] };
  client.onSessionUpdated((session) => heard.updated.push(session));
  client.onSessionEvent((notification) => heard.events.push(notification.sessionId));
  return heard;
}

describe("/v1/agent sessions per tenant", () => {
  it("B neither lists A's session nor hears its updates; A still does", async () => {
    workspace = createScriptedWorkspace();
    const server = await startWithKeys(scriptForA());
    const clientA = await server.connect(KEY_A);
    const clientB = await server.connect(KEY_B);
    const heardByB = eavesdrop(clientB);
    const recorderA = new EventRecorder(clientA);
    const { session: sessionA } = await clientA.request("session/start", { cwd: workspace.root });
    await clientA.request("turn/start", {
      sessionId: sessionA.sessionId,
      text: "Change the greeting.",
    });
    await recorderA.turnFinished();
    const { session: sessionB } = await clientB.request("session/start", { cwd: workspace.root });

    expect(await listedIds(clientB)).toEqual([sessionB.sessionId]);
    expect(await listedIds(clientA)).toEqual([sessionA.sessionId]);
    expect(heardByB.updated.map((session) => session.sessionId)).not.toContain(sessionA.sessionId);
    expect(heardByB.events).not.toContain(sessionA.sessionId);
    // A connection of A's that started nothing still hears A's sessions change.
    const otherA = await server.connect(KEY_A);
    const heardByOtherA = eavesdrop(otherA);
    await clientA.request("session/detach", { sessionId: sessionA.sessionId });
    await clientA.request("session/attach", { sessionId: sessionA.sessionId, lastSequence: 0 });
    await clientA.request("turn/start", { sessionId: sessionA.sessionId, text: "Once more." });
    await recorderA.next("approval-requested");
    await vi.waitFor(() =>
      expect(heardByOtherA.updated.map((session) => session.sessionId)).toContain(
        sessionA.sessionId,
      ),
    );
    // One round trip: whatever was sent to B before its answer has arrived by now.
    await clientB.request("session/list", {});
    expect(heardByB.updated.map((session) => session.sessionId)).not.toContain(sessionA.sessionId);
  });

  it("answers B on A's live session exactly as on a random id; A's command waits for A", async () => {
    workspace = createScriptedWorkspace();
    const server = await startWithKeys(scriptForA());
    const clientA = await server.connect(KEY_A);
    const recorderA = new EventRecorder(clientA);
    const { session } = await clientA.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await clientA.request("turn/start", { sessionId, text: "Change the greeting." });
    await recorderA.turnFinished();
    expect(workspace.read("src/greet.ts")).toContain('"hi"');
    await clientA.request("turn/start", { sessionId, text: "Write the marker." });
    const pending = await recorderA.next("approval-requested");

    const clientB = await server.connect(KEY_B);
    const heardByB = eavesdrop(clientB);
    const { foreign, random } = await probeForeignAndRandom(clientB, sessionId, pending.approvalId);
    expect(foreign).toEqual(random);
    expect(foreign[0]).toMatchObject({ error: { code: "session_not_found" } });
    expect(heardByB.events).not.toContain(sessionId);
    // B's approve did not run A's command, nor did B's undo put A's edit back.
    expect(existsSync(path.join(workspace.root, "marker.txt"))).toBe(false);
    expect(workspace.read("src/greet.ts")).toContain('"hi"');
    const [stillWaiting] = (await clientA.request("session/list", {})).sessions;
    expect(stillWaiting?.status).toBe("awaiting-approval");

    // A goes on: its approval runs the command, its undo restores its edit.
    await clientA.request("approval/respond", {
      sessionId,
      approvalId: pending.approvalId,
      decision: "approve",
    });
    await recorderA.turnFinished(2);
    expect(workspace.read("marker.txt")).toBe("ran\n");
    await clientA.request("edit/undo", { sessionId });
    expect(workspace.read("src/greet.ts")).toBe('export const greeting = "hello";\n');
  });

  it("keeps A's logged session A's after a restart: B cannot resume it, A can", async () => {
    workspace = createScriptedWorkspace();
    const model = scriptForA();
    const first = await startWithKeys(model);
    const clientA = await first.connect(KEY_A);
    const recorderA = new EventRecorder(clientA);
    const { session } = await clientA.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await clientA.request("turn/start", { sessionId, text: "Change the greeting." });
    await recorderA.turnFinished();
    await first.close();

    const second = await startWithKeys(model);
    const clientB = await second.connect(KEY_B);
    expect(await listedIds(clientB)).toEqual([]);
    const { foreign, random } = await probeForeignAndRandom(clientB, sessionId, "no-approval");
    expect(foreign).toEqual(random);
    // Nothing B did resumed it: A finds it logged, not live, and resumes it with its history.
    const resumedA = await second.connect(KEY_A);
    const listed = (await resumedA.request("session/list", {})).sessions;
    expect(listed.map((entry) => [entry.sessionId, entry.live])).toEqual([[sessionId, false]]);
    const attached = await resumedA.request("session/attach", { sessionId });
    expect(attached.history?.[0]).toEqual({ role: "user", text: "Change the greeting." });
  });

  it("without api_keys every connection shares the local sessions, as before; keys do not see them", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("local", [{ text: "ok" }]);
    const open = await startWithKeys(model, []);
    const first = await open.connect(null);
    const { session } = await first.request("session/start", { cwd: workspace.root });
    const second = await open.connect(null);
    expect(await listedIds(second)).toEqual([session.sessionId]);
    const attached = await second.request("session/attach", { sessionId: session.sessionId });
    expect(attached.session.sessionId).toBe(session.sessionId);
    await open.close();

    // Logged by the local user (as the terminal UI and `spark exec` log): no key's to see.
    const keyed = await startWithKeys(model);
    const clientA = await keyed.connect(KEY_A);
    expect(await listedIds(clientA)).toEqual([]);
    const { foreign, random } = await probeForeignAndRandom(
      clientA,
      session.sessionId,
      "no-approval",
    );
    expect(foreign).toEqual(random);
    await keyed.close();

    const reopened = await startWithKeys(model, []);
    expect(await listedIds(await reopened.connect(null))).toEqual([session.sessionId]);
  });
});
