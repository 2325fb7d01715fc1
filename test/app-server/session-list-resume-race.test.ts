// session/list while another client resumes a saved session (issue 37): the list reads the saved
// logs (slow with many), and a session resumed meanwhile must be in it, live, not in neither part.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createScriptedWorkspace,
  EventRecorder,
  startInProcessHarness,
  type InProcessHarness,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";

/** Runs once the list's read of the saved logs has finished, before the list goes on. */
const duringRead: { hook: (() => Promise<void>) | undefined } = { hook: undefined };

vi.mock("../../src/agent/session-store/session-directory.ts", async (importOriginal) => {
  const original =
    await importOriginal<typeof import("../../src/agent/session-store/session-directory.ts")>();
  return {
    ...original,
    listSessions: async (...args: Parameters<typeof original.listSessions>) => {
      const logs = await original.listSessions(...args);
      const hook = duringRead.hook;
      duringRead.hook = undefined;
      await hook?.();
      return logs;
    },
  };
});

let workspace: ScriptedWorkspace;
let harness: InProcessHarness | undefined;

afterEach(async () => {
  duringRead.hook = undefined;
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

describe("session/list racing a resume", () => {
  it("lists a session resumed while the saved logs were read, as live", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("race", [{ text: "First answer." }]);
    // A saved session: started and answered in one server, which then closes.
    const first = await startInProcessHarness(workspace, model);
    const writer = first.connect();
    const recorder = new EventRecorder(writer);
    const { session } = await writer.request("session/start", { cwd: workspace.root });
    await writer.request("turn/start", { sessionId: session.sessionId, text: "hello" });
    await recorder.next("turn-finished");
    await first.close();

    harness = await startInProcessHarness(workspace, model);
    const lister = harness.connect();
    const attacher = harness.connect();
    duringRead.hook = async () => {
      await attacher.request("session/attach", { sessionId: session.sessionId });
    };
    const { sessions } = await lister.request("session/list", {});
    expect(duringRead.hook).toBeUndefined();
    expect(sessions.filter((listed) => listed.sessionId === session.sessionId)).toEqual([
      expect.objectContaining({ sessionId: session.sessionId, live: true }),
    ]);
  });
});
