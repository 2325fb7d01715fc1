import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { mcpCommand } from "./mcp-command.ts";

describe("/mcp", () => {
  it("lists each server's state and the tools the model sees, warning when one is broken", async () => {
    const recording = recordingContext({
      "mcp/list": () => ({
        servers: [
          { name: "everything", state: "ready", tools: ["echo", "get-sum"], failures: 0 },
          {
            name: "broken",
            state: "restarting",
            tools: [],
            error: "spawn /nope ENOENT",
            failures: 1,
            retryInMs: 2000,
          },
        ],
      }),
    });
    await mcpCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      "MCP servers:\n" +
        "  everything: ready, 2 tools (everything__echo, everything__get-sum)\n" +
        "  broken: restarting (spawn /nope ENOENT); retrying in 2 s",
    ]);
    expect(recording.actions[0]).toMatchObject({ type: "notice", tone: "warning" });
  });

  it("says what to do about a server it did not start, gave up on or is starting again", async () => {
    const recording = recordingContext({
      "mcp/list": () => ({
        servers: [
          { name: "repo", state: "needs-consent", tools: [], failures: 0 },
          { name: "gone", state: "failed", tools: [], error: "exited (code 3)", failures: 5 },
          { name: "crashy", state: "starting", tools: [], error: "exited", failures: 1 },
          { name: "off", state: "disabled", tools: [], failures: 0 },
        ],
      }),
    });
    await mcpCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      "MCP servers:\n" +
        '  repo: not started: this project\'s config declares it; to run it, add "repo" to [mcp] trusted_project_servers in your own config\n' +
        "  gone: failed (exited (code 3)); not restarted again after 5 attempts in a row\n" +
        "  crashy: starting again after a failure (exited)\n" +
        "  off: disabled (enabled = false)",
    ]);
    expect(recording.actions[0]).toMatchObject({ type: "notice", tone: "warning" });
  });

  it("says when none are configured", async () => {
    const recording = recordingContext({ "mcp/list": () => ({ servers: [] }) });
    await mcpCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      "No MCP servers configured ([mcp_servers.<name>] in ~/.spark/config.toml).",
    ]);
  });
});
