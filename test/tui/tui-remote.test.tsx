// The terminal UI against a real `spark serve` (`spark --server`): connectRemote's URL handling
// and key, then the app streaming a scripted turn over the WebSocket and a second UI joining the
// same session (`--session`) with the conversation so far.
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentUrl, connectRemote, type AgentConnection } from "../../src/tui/connect-agent.ts";
import { App } from "../../src/tui/app.tsx";
import {
  createScriptedWorkspace,
  type ScriptedWorkspace,
} from "../app-server/support/app-server-harness.ts";
import {
  startServeHarness,
  TEST_API_KEY,
  type ServeHarness,
} from "../app-server/support/serve-harness.ts";

let workspace: ScriptedWorkspace | undefined;
let harness: ServeHarness | undefined;
const connections: AgentConnection[] = [];
const unmounts: (() => void)[] = [];

afterEach(async () => {
  for (const unmount of unmounts.splice(0)) unmount();
  for (const connection of connections.splice(0)) await connection.close();
  await harness?.close();
  workspace?.remove();
});

describe("spark --server", () => {
  it("turns a server address into its agent endpoint", () => {
    expect(agentUrl("ws://127.0.0.1:7777")).toBe("ws://127.0.0.1:7777/v1/agent");
    expect(agentUrl("http://box:7777/")).toBe("ws://box:7777/v1/agent");
    expect(agentUrl("wss://box/custom/path")).toBe("wss://box/custom/path");
    expect(() => agentUrl("ftp://box")).toThrow(/ws:\/\//);
  });

  it("streams a turn from spark serve, and a second UI joins the session", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("remote", [
      { text: "Hello from the server." },
      { text: "Still here.", expect: { anyMessageIncludes: "say hello" } },
    ]);
    harness = await startServeHarness(workspace, model);
    await expect(connectRemote(harness.serve.url)).rejects.toMatchObject({
      code: "authentication_failed",
    });
    const first = await connectRemote(harness.serve.url, TEST_API_KEY);
    connections.push(first);
    const { session } = await first.client.request("session/start", {});
    const app = render(
      <App
        client={first.client}
        sessionId={session.sessionId}
        route={first.route}
        cwd={undefined}
      />,
    );
    unmounts.push(() => app.unmount());
    await vi.waitFor(() => expect(app.lastFrame()).toContain("/v1/agent"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const character of "say hello") app.stdin.write(character);
    await new Promise((resolve) => setTimeout(resolve, 50));
    app.stdin.write("\r");
    await vi.waitFor(() => expect(app.lastFrame()).toContain("● Hello from the server."), {
      timeout: 10_000,
    });
    await vi.waitFor(() => expect(app.lastFrame()).toContain("idle ·"));

    const second = await connectRemote(harness.serve.url, TEST_API_KEY);
    connections.push(second);
    const joined = render(
      <App
        client={second.client}
        sessionId={session.sessionId}
        route={second.route}
        cwd={undefined}
      />,
    );
    unmounts.push(() => joined.unmount());
    // Joining replays the session's events, so the second UI shows the same conversation.
    await vi.waitFor(() => expect(joined.lastFrame()).toContain("● Hello from the server."));
    expect(joined.lastFrame()).toContain("› say hello");
  });
});
