import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { initialSessionViewState } from "../state/session-view-state.ts";
import { statusCommand } from "./status-command.ts";

const liveSession = {
  sessionId: "s1",
  cwd: "/home/ada/repo",
  live: true,
  status: "idle" as const,
  model: "script:turns.jsonl",
};

describe("/status", () => {
  it("says the session, workspace, model and route, sandbox, approvals, context and MCP servers", async () => {
    const view = initialSessionViewState("s1", { model: "qwen-0.5b" });
    view.metrics.contextTokens = 1530;
    view.metrics.windowTokens = 8192;
    const recording = recordingContext(
      {
        "session/list": () => ({ sessions: [liveSession] }),
        "mcp/list": () => ({
          servers: [
            { name: "everything", state: "ready", tools: ["echo", "get-sum"], failures: 0 },
            { name: "broken", state: "failed", tools: [], error: "spawn ENOENT", failures: 3 },
            { name: "repo", state: "needs-consent", tools: [], failures: 0 },
          ],
        }),
      },
      view,
    );
    recording.context.environment = {
      route: "in-process",
      sandbox: {
        kind: "bubblewrap",
        description: "bubblewrap (writes: workspace only, network: off)",
        network: false,
      },
      allowCommands: false,
    };
    await statusCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      [
        "Session    s1",
        "Workspace  /home/ada/repo",
        "Model      qwen-0.5b (in this process)",
        "Sandbox    bubblewrap (writes: workspace only, network: off)",
        "Approval   asks before a command it cannot judge safe (y once, a this exact command, n deny)",
        "Context    1.5k of 8.2k tokens (19%)",
        "MCP        everything ready (2 tools), broken failed (spawn ENOENT), repo not started (declared by this project; see /mcp)",
      ].join("\n"),
    ]);
  });

  it("on a server, names the route and leaves the sandbox and approvals to the server", async () => {
    const recording = recordingContext({
      "session/list": () => ({ sessions: [liveSession] }),
      "mcp/list": () => ({ servers: [] }),
    });
    recording.context.environment = { route: "ws://127.0.0.1:4000" };
    await statusCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      [
        "Session    s1",
        "Workspace  /home/ada/repo",
        "Model      script:turns.jsonl (via ws://127.0.0.1:4000)",
        "Sandbox    chosen by the agent server",
        "Approval   chosen by the agent server",
        "Context    no model call yet",
      ].join("\n"),
    ]);
  });

  it("says when no sandbox guards the commands and that the network is then open", async () => {
    const recording = recordingContext({
      "session/list": () => ({ sessions: [liveSession] }),
      "mcp/list": () => ({ servers: [] }),
    });
    recording.context.environment = {
      route: "in-process",
      sandbox: { kind: "none", description: "none — bwrap not found", network: false },
      allowCommands: true,
    };
    await statusCommand.run("", recording.context);
    const text = recording.notices()[0] ?? "";
    expect(text).toContain("Sandbox    none — bwrap not found; network: not limited");
    expect(text).toContain("Approval   never asks (--allow-commands): every command runs");
  });
});
