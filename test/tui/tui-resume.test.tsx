// A resumed session shows its history: a session run by one in-process app server is saved; a new
// app server (a later `spark --session <id>`) loads it on attach and the UI shows the conversation.
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AppServer } from "../../src/app-server/app-server.ts";
import { App } from "../../src/tui/app.tsx";
import {
  connectInProcess,
  createScriptedWorkspace,
  EventRecorder,
  startInProcessAppServer,
  type ScriptedWorkspace,
} from "../app-server/support/app-server-harness.ts";

let workspace: ScriptedWorkspace | undefined;
const servers: AppServer[] = [];
let unmount: (() => void) | undefined;

afterEach(async () => {
  unmount?.();
  for (const server of servers.splice(0)) await server.close();
  workspace?.remove();
});

describe("the terminal UI on a resumed session", () => {
  it("shows the saved conversation's history", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("resume", [{ text: "The greeting lives in src/greet.ts." }]);
    const before = await startInProcessAppServer(workspace, model);
    servers.push(before);
    const client = connectInProcess(before);
    const events = new EventRecorder(client);
    const { session } = await client.request("session/start", {});
    await client.request("turn/start", { sessionId: session.sessionId, text: "where is greet?" });
    await events.turnFinished();
    await before.close();

    const after = await startInProcessAppServer(workspace, model);
    servers.push(after);
    const app = render(
      <App
        client={connectInProcess(after)}
        sessionId={session.sessionId}
        route="in-process"
        cwd={workspace.root}
      />,
    );
    unmount = () => app.unmount();
    await vi.waitFor(() => expect(app.lastFrame()).toContain("History of this session:"));
    expect(app.lastFrame()).toContain("› where is greet?");
    expect(app.lastFrame()).toContain("● The greeting lives in src/greet.ts.");
  });
});
