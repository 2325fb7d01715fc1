// A repository whose ./.spark/config.toml picks the model (here: a replayed script inside the
// repository, as something that wrote the file could) is announced before the first turn, as
// users run Spark: `spark exec` on stderr (stdout stays pure JSON with --json), `spark serve` in
// its start-up log, and the terminal UI (in tmux) as a notice at the top of the transcript.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import { spark } from "../agent/support/spark-exec.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

const ANNOUNCEMENT =
  'spark: ./.spark/config.toml (this project) sets default_model = "repo-script", ' +
  'models.repo-script.engine = "script", models.repo-script.path = "./.spark/turns.jsonl"';

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

/** A repository whose own config makes its script the default model. */
function repositoryChoosingItsModel(answer: string): AgentWorkspace {
  const created = createAgentWorkspace();
  mkdirSync(path.join(created.root, ".spark"));
  created.write(".spark/turns.jsonl", `${JSON.stringify({ text: answer })}\n`);
  created.write(
    ".spark/config.toml",
    'default_model = "repo-script"\n[models.repo-script]\nengine = "script"\npath = "turns.jsonl"\n',
  );
  return created;
}

describe("spark exec", () => {
  it("prints one stderr line naming the file and what it set; stdout stays JSON", async () => {
    workspace = repositoryChoosingItsModel("Chosen by the repository.");
    const run = await spark(workspace, ["exec", "--json", "Hello"]);
    expect(run.code).toBe(0);
    // The helper parses every stdout line as JSON: the line never reaches stdout.
    const text = run.events
      .map((event) => (event.type === "text-delta" ? event.text : ""))
      .join("");
    expect(text).toBe("Chosen by the repository.");
    const announced = run.stderr.split("\n").filter((line) => line.includes("(this project)"));
    expect(announced).toEqual([ANNOUNCEMENT]);
  });

  it("says nothing when the project's config does not choose the model", async () => {
    workspace = createAgentWorkspace();
    workspace.write(".spark/config.toml", "[serve]\nport = 9100\n");
    const script = path.join(path.dirname(workspace.sessionsDirectory), "turns.jsonl");
    writeFileSync(script, `${JSON.stringify({ text: "ok" })}\n`);
    const run = await spark(workspace, ["exec", "--json", "--model", `script:${script}`, "Hi"]);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("(this project)");
  });
});

describe("spark serve", () => {
  it("logs the line when it starts", async () => {
    workspace = repositoryChoosingItsModel("ok");
    const child = spawn(process.execPath, [SPARK, "serve", "--port", "0"], {
      cwd: workspace.root,
      env: { ...process.env, SPARK_HOME: path.dirname(workspace.sessionsDirectory) },
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      const stderr = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
          if (text.includes("Command sandbox:")) resolve(text);
        });
        child.once("exit", (code) => reject(new Error(`spark serve exited (${code}): ${text}`)));
      });
      const lines = stderr.split("\n");
      expect(lines.filter((line) => line.includes("(this project)"))).toEqual([ANNOUNCEMENT]);
      // And what the agent's commands run inside, so an operator sees a missing sandbox.
      expect(stderr).toMatch(/^ {2}Command sandbox: (bubblewrap|none)/m);
      // Before the server says it is listening, so it heads the log.
      expect(lines.indexOf(ANNOUNCEMENT)).toBeLessThan(
        lines.findIndex((line) => line.startsWith("spark serve listening")),
      );
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe.skipIf(!hasTmux)("the terminal UI (skipped without tmux)", () => {
  // A server of each test's own: \`kill-server\` returns before the old one has gone, and the next
  // test's new-session on the same socket then failed ("server exited unexpectedly").
  let tests = 0;
  let socket = "";
  const tmux = (...args: string[]): string =>
    execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  beforeEach(() => {
    tests += 1;
    socket = `spark-announce-test-${process.pid}-${tests}`;
  });
  afterEach(() => {
    spawnSync("tmux", ["-L", socket, "kill-server"]);
  });

  it("shows the line as a notice before the first turn", async () => {
    workspace = repositoryChoosingItsModel("ok");
    const sparkHome = path.dirname(workspace.sessionsDirectory);
    const command = `env SPARK_HOME='${sparkHome}' '${process.execPath}' '${SPARK}'; sleep 600`;
    tmux("new-session", "-d", "-s", "tui", "-x", "250", "-y", "40", "-c", workspace.root, command);
    const deadline = Date.now() + 20_000;
    let pane = "";
    while (Date.now() < deadline && !(pane.includes("(this project)") && pane.includes("idle ·"))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pane = tmux("capture-pane", "-p", "-J", "-t", "tui");
    }
    // The notice is the line without the "spark: " a log line starts with.
    expect(pane).toContain(ANNOUNCEMENT.slice("spark: ".length));
    expect(pane.indexOf("(this project)")).toBeLessThan(pane.indexOf("idle ·"));
  });

  it("says at start that commands run without a sandbox when bwrap is missing (issue 22)", async () => {
    workspace = repositoryChoosingItsModel("ok");
    const sparkHome = path.dirname(workspace.sessionsDirectory);
    const noTools = path.join(path.dirname(workspace.root), "empty-path");
    mkdirSync(noTools, { recursive: true });
    const command = `env PATH='${noTools}' SPARK_HOME='${sparkHome}' '${process.execPath}' '${SPARK}'; sleep 600`;
    tmux("new-session", "-d", "-s", "tui", "-x", "250", "-y", "40", "-c", workspace.root, command);
    const deadline = Date.now() + 20_000;
    let pane = "";
    while (
      Date.now() < deadline &&
      !(pane.includes("command sandbox") && pane.includes("idle ·"))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pane = tmux("capture-pane", "-p", "-J", "-t", "tui");
    }
    expect(pane).toContain("command sandbox: none — bwrap is not on PATH");
  });
});
