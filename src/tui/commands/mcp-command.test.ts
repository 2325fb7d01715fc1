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

  it("says when none are configured", async () => {
    const recording = recordingContext({ "mcp/list": () => ({ servers: [] }) });
    await mcpCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      "No MCP servers configured ([mcp_servers.<name>] in ~/.spark/config.toml).",
    ]);
  });
});
