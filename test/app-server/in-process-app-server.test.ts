// The app server in-process (what the terminal UI runs): a client over the in-memory transport
// starts a session, streams a turn, answers an approval, undoes an edit, and attaches a second client.
import { afterEach, describe, expect, it } from "vitest";
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

describe("in-process app server", () => {
  it("starts a session, streams a turn with an approved command and an edit, and undoes the edit", async () => {
    workspace = createScriptedWorkspace();
    workspace.write("notes.txt", "old\n");
    const model = workspace.script("edit", [
      {
        text: "Running it.",
        toolCalls: [
          { name: "run_command", arguments: { command: "echo approved > ran.txt" } },
          { name: "read_file", arguments: { path: "notes.txt" } },
        ],
      },
      {
        text: "Editing.",
        toolCalls: [
          {
            name: "edit",
            arguments: { path: "notes.txt", oldText: "old", newText: "new" },
          },
        ],
      },
      { text: "Done." },
    ]);
    harness = await startInProcessHarness(workspace, model);
    const client = harness.connect();
    const recorder = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    expect(session).toMatchObject({ cwd: workspace.root, live: true, status: "idle" });
    await client.request("turn/start", { sessionId: session.sessionId, text: "Edit the notes." });
    const approval = await recorder.next("approval-requested");
    expect(approval.command).toBe("echo approved > ran.txt");
    await client.request("approval/respond", {
      sessionId: session.sessionId,
      approvalId: approval.approvalId,
      decision: "approve",
    });
    await recorder.turnFinished();
    expect(workspace.read("ran.txt")).toBe("approved\n");
    expect(workspace.read("notes.txt")).toBe("new\n");
    expect(recorder.types()).toContain("edit-applied");
    const sequences = recorder.notifications.map((notification) => notification.sequence);
    expect(sequences).toEqual(sequences.map((_, index) => index + 1));
    expect(recorder.types()[0]).toBe("session-started");

    const undo = await client.request("edit/undo", { sessionId: session.sessionId });
    expect(undo.files).toEqual([{ path: "notes.txt", action: "restored" }]);
    expect(workspace.read("notes.txt")).toBe("old\n");
  });
});
