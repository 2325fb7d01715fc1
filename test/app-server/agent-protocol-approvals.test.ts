// Approvals and undo over a real WebSocket: a command the user did not ask for waits for a client's
// answer (approve runs it, deny does not, always covers that exact command, an interrupt withdraws
// the question), and edit/undo puts the file on disk back.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createScriptedWorkspace,
  EventRecorder,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";
import { startServeHarness, type ServeHarness } from "./support/serve-harness.ts";

let workspace: ScriptedWorkspace;
let harness: ServeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

async function startSession(defaultModel: string) {
  harness = await startServeHarness(workspace, defaultModel);
  const client = await harness.connect();
  const recorder = new EventRecorder(client);
  const { session } = await client.request("session/start", { cwd: workspace.root });
  return { client, recorder, sessionId: session.sessionId };
}

const runCommand = (command: string) => ({
  text: "Running it.",
  toolCalls: [{ name: "run_command", arguments: { command } }],
});

describe("agent protocol approvals and undo over WebSocket", () => {
  it("runs an approved command and not a denied one; the whole command is shown", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("approvals", [
      runCommand("echo yes > approved.txt && echo done"),
      { text: "Ran it.", expect: { lastMessageIncludes: "done" } },
      runCommand("echo no > denied.txt"),
      { text: "Not run.", expect: { lastMessageIncludes: "not approved" } },
    ]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Set things up." });
    const first = await recorder.next("approval-requested");
    expect(first).toMatchObject({
      command: "echo yes > approved.txt && echo done",
      cwd: workspace.root,
    });
    expect(first.turnId).toBe(recorder.ofType("turn-started")[0]?.turnId);
    expect(recorder.ofType("status-changed").at(-1)?.status).toBe("awaiting-approval");
    await client.request("approval/respond", {
      sessionId,
      approvalId: first.approvalId,
      decision: "approve",
    });
    await recorder.turnFinished();
    expect(workspace.read("approved.txt")).toBe("yes\n");
    expect(recorder.ofType("approval-resolved")).toEqual([
      { type: "approval-resolved", approvalId: first.approvalId, decision: "approve" },
    ]);

    await client.request("turn/start", { sessionId, text: "And the other one." });
    const second = await recorder.next("approval-requested", (event) => event !== first);
    await client.request("approval/respond", {
      sessionId,
      approvalId: second.approvalId,
      decision: "deny",
    });
    await recorder.turnFinished(2);
    expect(existsSync(path.join(workspace.root, "denied.txt"))).toBe(false);
    expect(recorder.ofType("tool-result").at(-1)?.output).toContain("not approved");
    await expect(
      client.request("approval/respond", {
        sessionId,
        approvalId: second.approvalId,
        decision: "approve",
      }),
    ).rejects.toMatchObject({ code: "approval_not_found" });
  });

  it("'always' approves that exact command for the rest of the session, not others", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("always", [
      runCommand("echo one >> log.txt"),
      { text: "Once." },
      runCommand("echo one >> log.txt"),
      { text: "Twice, unasked." },
      runCommand("echo two >> log.txt"),
      { text: "Asked again." },
    ]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "First." });
    const asked = await recorder.next("approval-requested");
    await client.request("approval/respond", {
      sessionId,
      approvalId: asked.approvalId,
      decision: "always",
    });
    await recorder.turnFinished();
    await client.request("turn/start", { sessionId, text: "Second." });
    await recorder.turnFinished(2);
    expect(recorder.ofType("approval-requested")).toHaveLength(1);
    expect(workspace.read("log.txt")).toBe("one\none\n");
    await client.request("turn/start", { sessionId, text: "Third." });
    const other = await recorder.next("approval-requested", (event) => event !== asked);
    expect(other.command).toBe("echo two >> log.txt");
    await client.request("turn/interrupt", { sessionId });
    await recorder.turnFinished(3);
  });

  it("an interrupt (from any client) cancels a pending approval and the command does not run", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("cancel", [runCommand("echo late > late.txt")]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Go." });
    const asked = await recorder.next("approval-requested");
    // A client that attaches without lastSequence still sees the open question.
    const late = await harness!.connect();
    const lateEvents = new EventRecorder(late);
    const attached = await late.request("session/attach", { sessionId });
    expect(attached.replayedEvents).toBe(1);
    expect(attached.session.status).toBe("awaiting-approval");
    expect(lateEvents.ofType("approval-requested")).toEqual([asked]);
    await late.request("turn/interrupt", { sessionId });
    await recorder.turnFinished();
    expect(recorder.ofType("approval-resolved")).toEqual([
      { type: "approval-resolved", approvalId: asked.approvalId, decision: "cancelled" },
    ]);
    expect(recorder.ofType("turn-finished")[0]?.reason).toBe("interrupted");
    expect(existsSync(path.join(workspace.root, "late.txt"))).toBe(false);
  });

  it("edit/undo restores the edited file on disk", async () => {
    workspace = createScriptedWorkspace();
    workspace.write("src/greet.ts", 'export const greeting = "hello";\n');
    const model = workspace.script("undo", [
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
      { text: "Done." },
    ]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Say hi instead." });
    await recorder.turnFinished();
    expect(workspace.read("src/greet.ts")).toBe('export const greeting = "hi";\n');
    const [edit] = recorder.ofType("edit-applied");
    const undo = await client.request("edit/undo", { sessionId });
    expect(undo).toEqual({
      undoEntryId: edit?.undoEntryId,
      files: [{ path: "src/greet.ts", action: "restored" }],
    });
    expect(workspace.read("src/greet.ts")).toBe('export const greeting = "hello";\n');
    await recorder.next("edit-undone");
    await expect(client.request("edit/undo", { sessionId })).rejects.toMatchObject({
      message: expect.stringMatching(/undo/i) as unknown,
    });
  });
});
