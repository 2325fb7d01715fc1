// A resumed session shows its history as it looked live: a session run by one in-process app
// server is saved; a new app server (a later `spark --session <id>`) loads it on attach and the
// UI folds its logged events like live ones (issue 27: tool calls were JSON, read_file and
// command output dumped whole, the undo note shown as the user's words).
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

const PATCH = [
  "*** Begin Patch",
  "*** Update File: src/greet.ts",
  "-export const greeting = 1;",
  "+export const salutation = 1;",
  "*** End Patch",
].join("\n");

describe("the terminal UI on a resumed session", () => {
  it("shows the saved conversation as it was shown live", async () => {
    workspace = createScriptedWorkspace();
    workspace.write(
      "src/greet.ts",
      ["export const greeting = 1;", ...Array.from({ length: 30 }, (_, i) => `// line ${i}`)].join(
        "\n",
      ) + "\n",
    );
    const model = workspace.script("resume", [
      {
        text: "Reading it.",
        toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }],
      },
      { text: "Renaming.", toolCalls: [{ name: "apply_patch", arguments: { patch: PATCH } }] },
      { text: "The greeting lives in `src/greet.ts`, now **salutation**." },
      { text: "Back to greeting, as you undid it.", expect: { anyMessageIncludes: "undid" } },
    ]);
    const before = await startInProcessAppServer(workspace, model);
    servers.push(before);
    const client = connectInProcess(before);
    const events = new EventRecorder(client);
    const { session } = await client.request("session/start", {});
    await client.request("turn/start", { sessionId: session.sessionId, text: "where is greet?" });
    await events.turnFinished();
    await client.request("edit/undo", { sessionId: session.sessionId });
    await client.request("turn/start", { sessionId: session.sessionId, text: "fine, keep it" });
    await events.turnFinished(2);
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
    await vi.waitFor(() => expect(app.lastFrame()).toContain("Back to greeting"));
    const frame = app.lastFrame() ?? "";
    expect(frame).toContain("History of this session:");
    expect(frame).toContain("› where is greet?");
    expect(frame).toMatch(/✓ read_file src\/greet\.ts/);
    expect(frame).toContain("Edited src/greet.ts +1 -1");
    expect(frame).toContain("● The greeting lives in src/greet.ts, now salutation.");
    expect(frame).toContain("↶ Undid the last edit:");
    expect(frame).toContain("› fine, keep it");
    // Not the raw transcript: no call arguments as JSON, no file dumped, no internal note.
    expect(frame).not.toContain('{"path"');
    expect(frame).not.toContain("// line 20");
    expect(frame).not.toContain("[The user undid");
    // Each message once.
    expect(frame.match(/where is greet\?/g)).toHaveLength(1);
  });
});
