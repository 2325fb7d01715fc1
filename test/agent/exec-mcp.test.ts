// MCP tools in `spark exec` (issue 36): real MCP servers from node_modules (server-everything over
// stdio and streamable HTTP, server-memory) and two fixture servers of our own (one exits during a
// call, one takes long to start), the scripted engine playing the model through the real CLI.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import {
  EVERYTHING_SERVER,
  FIXTURE_SERVER,
  MEMORY_SERVER,
  TSX_LOADER,
  tomlString,
  writeUserConfig,
} from "./support/mcp-servers.ts";
import { script, spark } from "./support/spark-exec.ts";

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

let workspace: AgentWorkspace;
let httpServer: ChildProcess | undefined;
afterEach(() => {
  httpServer?.kill();
  httpServer = undefined;
  workspace.remove();
});

const node = tomlString(process.execPath);

function everythingStdio(extra = ""): string {
  return `[mcp_servers.everything]
command = ${node}
args = [${tomlString(EVERYTHING_SERVER)}, "stdio"]
required = true
${extra}
`;
}

function fixture(name: string, mode: string, extra = ""): string {
  return `[mcp_servers.${name}]
command = ${node}
args = ["--import", ${tomlString(TSX_LOADER)}, ${tomlString(FIXTURE_SERVER)}, ${tomlString(mode)}]
${extra}
`;
}

function toolResults(events: readonly AgentEvent[]): ToolResult[] {
  return events.filter((event): event is ToolResult => event.type === "tool-result");
}

async function execWith(
  toml: string,
  turns: unknown[],
  flags: string[] = [],
  environment: Record<string, string> = {},
) {
  writeUserConfig(workspace, toml);
  const file = script(workspace, "mcp.jsonl", turns);
  return spark(
    workspace,
    ["exec", "--json", ...flags, "--model", `script:${file}`, "use the tools"],
    undefined,
    environment,
  );
}

describe("spark exec with MCP servers", () => {
  it("calls server-everything's echo over stdio when --allow-commands approves calls", async () => {
    workspace = createAgentWorkspace();
    const run = await execWith(
      everythingStdio(),
      [
        {
          toolCalls: [{ name: "everything__echo", arguments: { message: "hello from spark" } }],
        },
        { text: "Echoed.", expect: { lastMessageIncludes: "Echo: hello from spark" } },
      ],
      ["--allow-commands"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/MCP server "everything" ready: \d+ tools \(echo, /);
    expect(toolResults(run.events)).toMatchObject([
      { name: "everything__echo", isError: false, output: "Echo: hello from spark" },
    ]);
  });

  it("calls echo over server-everything's streamable HTTP mode", async () => {
    workspace = createAgentWorkspace();
    const port = await freePort();
    httpServer = await startHttpEverything(port);
    const run = await execWith(
      `[mcp_servers.web]
url = "http://127.0.0.1:${port}/mcp"
required = true
auto_approve_tools = ["echo"]
`,
      [
        { toolCalls: [{ name: "web__echo", arguments: { message: "over http" } }] },
        { text: "Done.", expect: { lastMessageIncludes: "Echo: over http" } },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(toolResults(run.events)).toMatchObject([
      { name: "web__echo", isError: false, output: "Echo: over http" },
    ]);
  });

  it("refuses a call in headless mode without approval, and the model is told how to get it", async () => {
    workspace = createAgentWorkspace();
    const run = await execWith(everythingStdio(), [
      { toolCalls: [{ name: "everything__echo", arguments: { message: "unapproved" } }] },
      { text: "I will ask.", expect: { lastMessageIncludes: "not approved: ask the user" } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(run.events);
    expect(result?.isError).toBe(true);
    expect(result?.output).toMatch(/^not approved: ask the user\. everything__echo was not called/);
    expect(result?.output).toContain('auto_approve_tools = ["echo"]');
    expect(result?.output).not.toContain("Echo: unapproved");
  });

  it("runs a call the user's own config allow-lists, and server-memory's tools work the same", async () => {
    workspace = createAgentWorkspace();
    const memoryFile = path.join(path.dirname(workspace.root), "memory.jsonl");
    const run = await execWith(
      `${everythingStdio('auto_approve_tools = ["echo"]')}
[mcp_servers.memory]
command = ${node}
args = [${tomlString(MEMORY_SERVER)}]
env = { MEMORY_FILE_PATH = ${tomlString(memoryFile)} }
required = true
auto_approve = true
`,
      [
        {
          toolCalls: [
            { name: "everything__echo", arguments: { message: "listed" } },
            {
              name: "memory__create_entities",
              arguments: {
                entities: [{ name: "Spark", entityType: "project", observations: ["speaks MCP"] }],
              },
            },
            { name: "memory__read_graph", arguments: {} },
          ],
        },
        { text: "Done." },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const results = toolResults(run.events);
    expect(results.map((result) => result.isError)).toEqual([false, false, false]);
    expect(results[0]?.output).toBe("Echo: listed");
    expect(results[2]?.output).toContain("speaks MCP");
  });

  it("times a call out after tool_timeout_ms, tells the model, and the turn goes on", async () => {
    workspace = createAgentWorkspace();
    const run = await execWith(
      everythingStdio("tool_timeout_ms = 1500"),
      [
        {
          toolCalls: [
            {
              name: "everything__trigger-long-running-operation",
              arguments: { duration: 60, steps: 2 },
            },
          ],
        },
        {
          toolCalls: [{ name: "everything__echo", arguments: { message: "still here" } }],
          expect: { lastMessageIncludes: "within 1500 ms" },
        },
        { text: "Done.", expect: { lastMessageIncludes: "Echo: still here" } },
      ],
      ["--allow-commands"],
    );
    expect(run.code, run.stderr).toBe(0);
    const [timedOut, echoed] = toolResults(run.events);
    expect(timedOut).toMatchObject({ isError: true });
    expect(timedOut?.output).toContain(
      'The MCP server "everything" did not answer trigger-long-running-operation within 1500 ms',
    );
    expect(timedOut?.durationMs).toBeLessThan(60_000);
    expect(echoed).toMatchObject({ isError: false, output: "Echo: still here" });
  });

  it("reports a server that exits during a call to the model and the user, without ending the turn", async () => {
    workspace = createAgentWorkspace();
    const run = await execWith(fixture("crashy", "crash", "required = true\nauto_approve = true"), [
      { toolCalls: [{ name: "crashy__crash_now", arguments: { reason: "test" } }] },
      { text: "It crashed.", expect: { lastMessageIncludes: "exited during the call" } },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(run.events);
    expect(result?.isError).toBe(true);
    expect(result?.output).toContain('The MCP server "crashy" exited during the call');
    expect(result?.output).toContain("crashing on purpose (test)");
    expect(run.stderr).toMatch(/MCP server "crashy" failed \(exited.*\); restarting in 1 s/);
    const finished = run.events.find((event) => event.type === "turn-finished");
    expect(finished).toMatchObject({ reason: "completed" });
  });

  it("runs the first turn at once while a server takes 10 s to start", async () => {
    workspace = createAgentWorkspace();
    const run = await execWith(fixture("slow", "slow", "auto_approve = true"), [
      { toolCalls: [{ name: "slow__late_answer", arguments: { question: "now?" } }] },
      {
        text: "Not yet.",
        expect: { lastMessageIncludes: "slow__late_answer is not available now" },
      },
    ]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = toolResults(run.events);
    expect(result?.isError).toBe(true);
    expect(result?.output).toContain('MCP server "slow" starting');
    // The turn ended before the server was ready: it never said so.
    expect(run.stderr).not.toContain('"slow" ready');
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function startHttpEverything(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING_SERVER, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes("listening on port")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited ${code}: ${stderr}`)));
  });
  return child;
}
