// The run_command sandbox through the real `spark exec` (issue 22): with --allow-commands the
// scripted "model" tries to write outside the workspace, into git's hooks and Spark's settings,
// to read Spark's secrets from its environment and to reach a server on this machine. Skips
// (saying why) where bubblewrap cannot run; fails under CI=true, where .ci/run installs it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { probeCommandSandbox } from "../../src/agent/sandbox/detect-command-sandbox.ts";
import { isInside } from "../../src/agent/sandbox/protected-workspace-paths.ts";
import { sandboxMounts, sandboxViewInputFor } from "../../src/agent/sandbox/sandbox-mounts.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

/**
 * Where two tests make their workspace: in the checkout (.spark-test/, git-ignored) rather than in
 * /tmp, so that a write beside it meets the sandbox's read-only root unless the checkout itself
 * lies in a folder the sandbox empties.
 */
const CHECKOUT_SCRATCH = fileURLToPath(new URL("../../.spark-test/sandbox/", import.meta.url));

/**
 * Whether the sandbox shows `folder` as an empty private copy (its /tmp, /var/tmp, /run and the
 * homes): the last of the sandbox's own mounts that covers the folder says. A write there
 * succeeds inside and never reaches the machine; elsewhere beside the workspace it meets the
 * read-only root.
 */
function privateInSandbox(folder: string): boolean {
  const sparkHome = path.dirname(workspace.sessionsDirectory);
  const mounts = sandboxMounts(sandboxViewInputFor(workspace.root, [], sparkHome));
  return mounts.findLast((mount) => isInside(mount.target, folder))?.kind === "empty";
}

const detection = await probeCommandSandbox({
  platform: process.platform,
  searchPath: process.env.PATH,
});
const missing = detection.kind === "none" ? detection.reason : undefined;
if (missing !== undefined) {
  if (process.env.CI === "true")
    throw new Error(`The sandbox tests must run in CI, but ${missing}.`);
  console.warn(`Skipping the command sandbox tests: ${missing}.`);
}

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

function gitRepository(parentDirectory?: string): AgentWorkspace {
  workspace = createAgentWorkspace(parentDirectory);
  execFileSync("git", ["init", "-q", workspace.root]);
  return workspace;
}

async function runCommands(
  commands: string[],
  options: { flags?: string[]; environment?: Record<string, string | undefined> } = {},
): Promise<{ results: ToolResult[]; stderr: string; events: AgentEvent[] }> {
  const file = script(workspace, "commands.jsonl", [
    {
      text: "Running.",
      toolCalls: commands.map((command) => ({ name: "run_command", arguments: { command } })),
    },
    { text: "Done." },
  ]);
  const run = await spark(
    workspace,
    [
      "exec",
      "--json",
      "--allow-commands",
      ...(options.flags ?? []),
      "--model",
      `script:${file}`,
      "go",
    ],
    undefined,
    options.environment,
  );
  expect(run.code, run.stderr).toBe(0);
  const results = run.events.filter((event): event is ToolResult => event.type === "tool-result");
  expect(results).toHaveLength(commands.length);
  return { results, stderr: run.stderr, events: run.events };
}

function userConfig(text: string): void {
  writeFileSync(path.join(path.dirname(workspace.sessionsDirectory), "config.toml"), text);
}

describe.skipIf(missing !== undefined)("spark exec's command sandbox", () => {
  it("lets a command write in the workspace and nowhere else", async () => {
    gitRepository(CHECKOUT_SCRATCH);
    const beside = path.join(path.dirname(workspace.root), "beside.txt");
    const { results, stderr, events } = await runCommands([
      "echo inside > inside.txt",
      `echo outside > ${beside}`,
    ]);
    expect(stderr).toBe("");
    expect(events[0]).toMatchObject({
      type: "session-started",
      commandSandbox: {
        kind: "bubblewrap",
        description: "bubblewrap (writes: workspace only, network: off)",
      },
    });
    expect(results[0]).toMatchObject({ isError: false, output: "(no output)\n[exit code 0]" });
    expect(workspace.read("inside.txt")).toBe("inside\n");
    if (privateInSandbox(path.dirname(beside)))
      expect(results[1]?.output).toBe("(no output)\n[exit code 0]");
    else expect(results[1]?.output).toMatch(/Read-only file system\n\[exit code [1-9]\d*\]$/);
    expect(existsSync(beside)).toBe(false);
  });

  it("keeps writes beside a workspace under /tmp in the private /tmp", async () => {
    gitRepository();
    const beside = path.join(path.dirname(workspace.root), "beside.txt");
    const { results } = await runCommands([`echo outside > ${beside}; cat ${beside}`]);
    expect(results[0]?.output).toBe("outside\n[exit code 0]");
    expect(existsSync(beside)).toBe(false);
  });

  it("keeps git's folder, the hooks folder, .husky and an existing .spark read-only", async () => {
    gitRepository(CHECKOUT_SCRATCH);
    execFileSync("git", ["-C", workspace.root, "config", "core.hooksPath", ".githooks"]);
    workspace.write(".githooks/pre-commit", "#!/bin/sh\n");
    workspace.write(".husky/pre-push", "#!/bin/sh\n");
    workspace.write(".spark/config.toml", "# the user's\n");
    const attempts = [
      "echo evil > .git/hooks/post-checkout",
      "echo evil >> .git/config",
      "echo evil > .githooks/pre-commit",
      "echo evil > .husky/pre-push",
      "echo evil > .spark/config.toml",
      "rm -rf .spark",
    ];
    const { results } = await runCommands(attempts);
    for (const [index, command] of attempts.entries()) {
      expect(results[index]?.output, command).toMatch(
        /(Read-only file system|Device or resource busy)/,
      );
      expect(results[index]?.output, command).toMatch(/\[exit code [1-9]\d*\]$/);
    }
    expect(existsSync(path.join(workspace.root, ".git/hooks/post-checkout"))).toBe(false);
    expect(readFileSync(path.join(workspace.root, ".git/config"), "utf8")).not.toContain("evil");
    expect(workspace.read(".githooks/pre-commit")).toBe("#!/bin/sh\n");
    expect(workspace.read(".husky/pre-push")).toBe("#!/bin/sh\n");
    expect(workspace.read(".spark/config.toml")).toBe("# the user's\n");
  });

  it("removes a .spark folder a command created, and tells the model why", async () => {
    gitRepository();
    const { results } = await runCommands([
      "mkdir .spark && printf '[sandbox]\\nmode = \"off\"\\n' > .spark/config.toml && echo made",
    ]);
    expect(results[0]?.output).toBe(
      "made\n[removed .spark: this command created it, and the agent's commands may not create Spark's project settings]\n[exit code 0]",
    );
    expect(existsSync(path.join(workspace.root, ".spark"))).toBe(false);
  });

  it("cuts the network off unless --allow-network or [sandbox] network = true", async () => {
    const server = net.createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      const connect = `${JSON.stringify(process.execPath)} -e ${JSON.stringify(
        `require("net").connect(${port}, "127.0.0.1")` +
          `.on("data", (data) => { process.stdout.write("got " + data); process.exit(0); })` +
          `.on("error", (error) => { console.log("failed " + error.code); process.exit(3); })`,
      )}`;
      gitRepository();
      const offline = await runCommands([connect]);
      expect(offline.results[0]?.output).toBe("failed ECONNREFUSED\n[exit code 3]");
      const allowed = await runCommands([connect], { flags: ["--allow-network"] });
      expect(allowed.results[0]?.output).toBe("got hello from the host\n[exit code 0]");
      userConfig("[sandbox]\nnetwork = true\n");
      const configured = await runCommands([connect]);
      expect(configured.results[0]?.output).toBe("got hello from the host\n[exit code 0]");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("spark exec's command environment", () => {
  it("hides Spark's secrets from commands unless the user's [sandbox] env names them", async () => {
    workspace = createAgentWorkspace();
    userConfig('[sandbox]\nenv = ["SPARK_TEST_PASSED_ON"]\n');
    const { results } = await runCommands(["env"], {
      environment: {
        OPENAI_API_KEY: "sk-test-openai-secret",
        SPARK_API_KEY: "spark-test-secret",
        GITHUB_TOKEN: "ghp_test_secret",
        SPARK_TEST_PASSED_ON: "passed on",
        LC_TIME: "C",
      },
    });
    const output = results[0]?.output ?? "";
    expect(output).toContain("PATH=");
    expect(output).toContain("LC_TIME=C\n");
    expect(output).toContain("SPARK_TEST_PASSED_ON=passed on\n");
    for (const secret of ["OPENAI_API_KEY", "SPARK_API_KEY", "GITHUB_TOKEN", "secret"])
      expect(output).not.toContain(secret);
  });
});

describe("spark exec without a sandbox", () => {
  it("says so on stderr and in session-started, with the reason", async () => {
    workspace = createAgentWorkspace();
    const emptyPath = mkdtempSync(path.join(os.tmpdir(), "spark-no-bwrap-"));
    try {
      const run = await runCommands(["echo hi"], { environment: { PATH: emptyPath } });
      expect(run.stderr).toBe(
        "spark: no sandbox for commands (bwrap is not on PATH (install the bubblewrap package)); --allow-commands runs every command with your full access\n",
      );
      expect(run.events[0]).toMatchObject({
        type: "session-started",
        commandSandbox: { kind: "none" },
      });
      expect(run.results[0]?.output).toBe("hi\n[exit code 0]");
    } finally {
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });

  it('is only ever turned off by the user: [sandbox] mode = "off"', async () => {
    workspace = createAgentWorkspace();
    userConfig('[sandbox]\nmode = "off"\n');
    const file = script(workspace, "none.jsonl", [{ text: "Nothing to run." }]);
    const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, "hi"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'spark: no sandbox for commands (turned off by [sandbox] mode = "off" in the config); every command outside the read-only list needs approval\n',
    );
  });
});
