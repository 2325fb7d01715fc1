// An agent session with MCP servers (issue 36), in process with real server processes: a server
// that starts late joins after the first turn and the model is told in its next message; a
// server that exits mid-call is restarted with backoff and its tools work again; an interactive
// surface is asked about each call with the tool and its arguments, "always" keyed per tool.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpServerManager } from "../../src/agent/mcp/mcp-server-manager.ts";
import type { McpServerState } from "../../src/agent/mcp/mcp-server-connection.ts";
import type { CommandApprovalRequest } from "../../src/agent/approval/command-approval.ts";
import { DEFAULT_TOOLS, ToolRegistry } from "../../src/agent/tools/tool-registry.ts";
import type { McpServerConfig } from "../../src/config/mcp-server-config.ts";
import {
  createAgentWorkspace,
  eventsOfType,
  startScriptedSession,
  type AgentWorkspace,
} from "./support/agent-workspace.ts";
import { FIXTURE_SERVER, TSX_LOADER } from "./support/mcp-servers.ts";

let workspace: AgentWorkspace;
let manager: McpServerManager | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
  workspace.remove();
});

function fixtureServer(
  name: string,
  mode: string,
  overrides: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name,
    transport: {
      kind: "stdio",
      command: process.execPath,
      args: ["--import", TSX_LOADER, FIXTURE_SERVER, mode],
      env: {},
    },
    enabled: true,
    required: false,
    startupTimeoutMs: 30_000,
    toolTimeoutMs: 30_000,
    disabledTools: [],
    autoApprove: false,
    autoApproveTools: [],
    origin: "user",
    ...overrides,
  };
}

function reaches(target: McpServerManager, name: string, state: McpServerState): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (target.statuses().find((status) => status.name === name)?.state !== state) return;
      unsubscribe();
      resolve();
    };
    const unsubscribe = target.subscribe(check);
    check();
  });
}

describe("MCP servers in an agent session", () => {
  it("runs the first turn without a slow server; its tools join and the model is told next turn", async () => {
    workspace = createAgentWorkspace();
    const slow = fixtureServer("slow", "slow", { autoApprove: true });
    // The server starts when this file appears: after the first turn, whatever the machine's load.
    const startFile = path.join(path.dirname(workspace.root), "slow-server-may-start");
    if (slow.transport.kind === "stdio") slow.transport.env = { SLOW_START_FILE: startFile };
    manager = new McpServerManager([slow]);
    manager.start();
    const { session, events } = await startScriptedSession(
      workspace,
      [
        { toolCalls: [{ name: "slow__late_answer", arguments: { question: "now?" } }] },
        { text: "It is not up yet." },
        {
          expect: { lastMessageIncludes: "these tools joined: slow__late_answer" },
          toolCalls: [{ name: "slow__late_answer", arguments: { question: "and now?" } }],
        },
        { text: "Answered.", expect: { lastMessageIncludes: "late answer to and now?" } },
      ],
      { registry: new ToolRegistry(DEFAULT_TOOLS, [manager]) },
    );
    const first = await session.submit("ask the slow server");
    expect(first.reason).toBe("completed");
    expect(manager.statuses()[0]?.state).toBe("starting");
    writeFileSync(startFile, "");
    await reaches(manager, "slow", "ready");
    const second = await session.submit("try again");
    expect(second.reason, second.error?.message).toBe("completed");
    const results = eventsOfType(events, "tool-result");
    expect(results[0]).toMatchObject({ isError: true });
    expect(results[0]?.output).toContain('MCP server "slow" starting');
    expect(results[1]).toMatchObject({ isError: false, output: "late answer to and now?" });
    await session.close();
  });

  it("restarts a server that exited mid-call, with backoff, and its tools work again", async () => {
    workspace = createAgentWorkspace();
    manager = new McpServerManager([fixtureServer("crashy", "crash", { autoApprove: true })], {
      backoff: { initialMs: 200, maxMs: 1_000, maxFailures: 5 },
    });
    const states: string[] = [];
    manager.subscribe((status) => states.push(status.state));
    manager.start();
    await reaches(manager, "crashy", "ready");
    const { session, events } = await startScriptedSession(
      workspace,
      [
        { toolCalls: [{ name: "crashy__crash_now", arguments: { reason: "mid-call" } }] },
        { text: "It died." },
        { toolCalls: [{ name: "crashy__alive", arguments: {} }] },
        { text: "Back.", expect: { lastMessageIncludes: "alive as pid" } },
      ],
      { registry: new ToolRegistry(DEFAULT_TOOLS, [manager]) },
    );
    const first = await session.submit("crash it");
    expect(first.reason).toBe("completed");
    expect(manager.statuses()[0]?.failures).toBe(1);
    await reaches(manager, "crashy", "ready");
    expect(states).toEqual(["ready", "restarting", "starting", "ready"]);
    const second = await session.submit("is it back?");
    expect(second.reason, second.error?.message).toBe("completed");
    const results = eventsOfType(events, "tool-result");
    expect(results[0]?.output).toContain('The MCP server "crashy" exited during the call');
    expect(results[1]).toMatchObject({ isError: false });
    await session.close();
  });

  it("asks an interactive surface about each call, naming the tool and its arguments", async () => {
    workspace = createAgentWorkspace();
    manager = new McpServerManager([fixtureServer("crashy", "crash")]);
    manager.start();
    await reaches(manager, "crashy", "ready");
    const asked: CommandApprovalRequest[] = [];
    const answers = [false, true];
    const { session, events } = await startScriptedSession(
      workspace,
      [
        {
          toolCalls: [
            { name: "crashy__alive", arguments: { note: 1 } },
            { name: "crashy__alive", arguments: { note: 2 } },
          ],
        },
        { text: "Done." },
      ],
      {
        registry: new ToolRegistry(DEFAULT_TOOLS, [manager]),
        commandApproval: {
          autoApprove: false,
          ask: (request) => {
            asked.push(request);
            return Promise.resolve(answers.shift() ?? false);
          },
        },
      },
    );
    await session.submit("check it is alive");
    expect(asked.map((request) => [request.command, request.alwaysKey])).toEqual([
      ['crashy__alive {"note":1}', "mcp:crashy__alive"],
      ['crashy__alive {"note":2}', "mcp:crashy__alive"],
    ]);
    // Surfaces word the question as a call of this tool, not as a shell command.
    expect(asked.map((request) => request.mcpTool)).toEqual([
      { server: "crashy", tool: "alive" },
      { server: "crashy", tool: "alive" },
    ]);
    const results = eventsOfType(events, "tool-result");
    expect(results[0]?.output).toContain("the user declined it");
    expect(results[1]?.output).toMatch(/^alive as pid \d+$/);
    await session.close();
  });
});
