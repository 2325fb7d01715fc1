// `spark mcp list` and `spark doctor` (issue 36): each configured MCP server's state and tools
// from real processes, a broken server named with why, a disabled one, and a project's server
// that the user did not trust left unstarted.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { EVERYTHING_SERVER, tomlString, writeUserConfig } from "./support/mcp-servers.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SPARK, ...args], {
      cwd: workspace.root,
      env: { ...process.env, SPARK_HOME: path.dirname(workspace.sessionsDirectory) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function configure(): void {
  workspace = createAgentWorkspace();
  writeUserConfig(
    workspace,
    `[mcp_servers.everything]
command = ${tomlString(process.execPath)}
args = [${tomlString(EVERYTHING_SERVER)}, "stdio"]
enabled_tools = ["echo", "get-sum"]

[mcp_servers.broken]
command = "/nonexistent/mcp-server"

[mcp_servers.off]
command = "/nonexistent/never-run"
enabled = false
`,
  );
  workspace.write(
    ".spark/config.toml",
    `[mcp_servers.from-repo]
command = "/nonexistent/repo-server"
`,
  );
}

describe("spark mcp list", () => {
  it("shows each server's state and the tools the model sees", async () => {
    configure();
    const result = await run(["mcp", "list"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContain(`everything: ready  (${process.execPath} ${EVERYTHING_SERVER} stdio)`);
    expect(lines).toContain("  everything__echo");
    expect(lines).toContain("  everything__get-sum");
    // enabled_tools leaves the rest out.
    expect(result.stdout).not.toContain("everything__trigger-long-running-operation");
    expect(result.stdout).toMatch(
      /broken: failed {2}\(\/nonexistent\/mcp-server\)\n {2}MCP server "broken" failed: spawn \/nonexistent\/mcp-server ENOENT\n/,
    );
    expect(result.stdout).toContain(
      'off: disabled  (/nonexistent/never-run)\n  MCP server "off" disabled',
    );
    expect(result.stdout).toContain(
      'from-repo: needs-consent  (/nonexistent/repo-server)\n  MCP server "from-repo" not started',
    );
  });

  it("--json carries the same per server", async () => {
    configure();
    const result = await run(["mcp", "list", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const servers = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(servers.map((server) => [server.name, server.state, server.origin])).toEqual([
      ["everything", "ready", "user"],
      ["broken", "failed", "user"],
      ["off", "disabled", "user"],
      ["from-repo", "needs-consent", "untrusted-project"],
    ]);
    expect(servers[0]?.modelToolNames).toEqual(["everything__echo", "everything__get-sum"]);
  });
});

describe("spark doctor with MCP servers", () => {
  it("reports the broken server as an error and the untrusted project server as a warning", async () => {
    configure();
    const result = await run(["doctor", "--offline", "--json"]);
    const report = JSON.parse(result.stdout) as {
      mcpServers: { name: string; state: string }[];
      findings: { status: string; message: string }[];
    };
    expect(report.mcpServers.map((server) => [server.name, server.state])).toEqual([
      ["everything", "ready"],
      ["broken", "failed"],
      ["off", "disabled"],
      ["from-repo", "needs-consent"],
    ]);
    const mcpFindings = report.findings.filter((finding) => finding.message.includes("MCP"));
    expect(mcpFindings).toEqual([
      {
        status: "error",
        message: expect.stringMatching(/^MCP server "broken" does not start: .*ENOENT/) as string,
      },
      {
        status: "warning",
        message: expect.stringContaining('MCP server "from-repo" not started') as string,
      },
    ]);
    expect(result.code).toBe(1);
  });
});
