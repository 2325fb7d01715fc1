// MCP tools in the terminal UI, in a real terminal (issue 36): tmux runs `spark --model script:…`
// with three MCP servers in the user's config: server-everything from node_modules over stdio,
// and the fixture servers that start only once the test lets them and that exit mid-call. The
// first turn runs at once without the slow one, /mcp shows it starting and later ready with its
// tool, an echo call is approved in the TUI and its result reaches the model, and a timeout and a
// crash are reported in the transcript while the session goes on.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EVERYTHING_SERVER,
  FIXTURE_SERVER,
  TSX_LOADER,
  tomlString,
} from "../agent/support/mcp-servers.ts";
import { occurrences, sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
if (!hasTmux && !inCi)
  console.log("Skipping the terminal UI's MCP test: tmux is not installed (apt-get install tmux).");

const server = tmuxServer("spark-tui-mcp");
const pane = "mcp";
let spark: SparkPane;
let marker = "";
/** The slow server answers nothing until this file exists (the fixture's SLOW_START_FILE). */
let slowStartFile = "";

const node = tomlString(process.execPath);
const fixtureArguments = (mode: string): string =>
  `["--import", ${tomlString(TSX_LOADER)}, ${tomlString(FIXTURE_SERVER)}, ${tomlString(mode)}]`;

const config = (): string => `[mcp_servers.everything]
command = ${node}
args = [${tomlString(EVERYTHING_SERVER)}, "stdio"]
tool_timeout_ms = 1500

[mcp_servers.slow]
command = ${node}
args = ${fixtureArguments("slow")}
env = { SLOW_START_FILE = ${tomlString(slowStartFile)} }
auto_approve = true

[mcp_servers.crashy]
command = ${node}
args = ${fixtureArguments("crash")}
auto_approve = true
`;

// One line per model call, in the order the test sends its messages. The expectations make the
// scripted engine fail the turn when a tool's result did not reach the model.
const TURNS = [
  // 1: the slow server is still starting.
  { toolCalls: [{ name: "slow__late_answer", arguments: { question: "now?" } }] },
  {
    text: "The slow server is not up yet.",
    expect: { lastMessageIncludes: "is not available now" },
  },
  // 2: it joined; the model is told in the next message and its tool answers.
  {
    toolCalls: [{ name: "slow__late_answer", arguments: { question: "and now?" } }],
    // Every server that became ready since the first turn is named there, in the order they did.
    expect: { lastMessageIncludes: "these tools joined: " },
  },
  { text: "The slow server answered.", expect: { lastMessageIncludes: "late answer to and now?" } },
  // 3: a call the user approves in the TUI.
  { toolCalls: [{ name: "everything__echo", arguments: { message: "hello from tmux" } }] },
  { text: "The echo came back.", expect: { lastMessageIncludes: "Echo: hello from tmux" } },
  // 4: a call past tool_timeout_ms.
  {
    toolCalls: [
      {
        name: "everything__trigger-long-running-operation",
        arguments: { duration: 60, steps: 2 },
      },
    ],
  },
  { text: "That one timed out.", expect: { lastMessageIncludes: "within 1500 ms" } },
  // 5: a server that exits during the call.
  { toolCalls: [{ name: "crashy__crash_now", arguments: { reason: "in tmux" } }] },
  { text: "The crashy server died.", expect: { lastMessageIncludes: "exited during the call" } },
  // 6: the session goes on.
  { text: "Still here after the crash." },
];

/** Sends /mcp until its newest answer matches `predicate`; returns that answer. */
async function mcpUntil(
  step: string,
  predicate: (answer: string) => boolean,
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const before = occurrences(server.capture(pane), /^MCP servers:$/m);
    spark.keys(pane, "/mcp", "Enter");
    const shown = await server.waitForPane(
      pane,
      `${step} (/mcp)`,
      (text) => occurrences(text, /^MCP servers:$/m) > before && !/^│ › \/mcp/m.test(text),
    );
    const answer = newestMcpAnswer(shown);
    if (predicate(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for: ${step}\n${answer}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The rows of the last /mcp answer on screen, one per server: Ink wraps a long row itself, so a
 * line that does not start indented continues the row above it. */
function newestMcpAnswer(text: string): string {
  const lines = text.split("\n");
  const start = lines.map((line) => line.trim()).lastIndexOf("MCP servers:");
  const rows: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" || /^[╭›●✗]/.test(line)) break;
    if (/^ {2}\S/.test(line)) rows.push(line.trim());
    else rows[rows.length - 1] = `${rows.at(-1) ?? ""}${line.trim()}`;
  }
  return rows.join("\n");
}

/** The pane with Ink's own line wrapping undone, for sentences longer than a row. */
function flat(text: string): string {
  return text.replace(/\s+/g, " ");
}

async function answer(step: string, expected: string): Promise<string> {
  return server.waitForPane(pane, step, (text) => text.includes(expected), 30_000);
}

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) with MCP servers", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, TURNS);
    slowStartFile = path.join(spark.sparkHome, "slow-server-may-start");
    writeFileSync(path.join(spark.sparkHome, "config.toml"), config());
    // A server the repository declares: announced, never started without the user's consent.
    marker = path.join(spark.sparkHome, "project-server-ran");
    mkdirSync(path.join(spark.workspace.root, ".spark"));
    writeFileSync(
      path.join(spark.workspace.root, ".spark", "config.toml"),
      `[mcp_servers.repo]\ncommand = "touch"\nargs = [${tomlString(marker)}]\n`,
    );
    spark.start(pane, { columns: 140, rows: 50 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("runs the first turn at once while the slow server starts; /mcp shows it starting", async () => {
    await server.waitForPane(
      pane,
      "started",
      (text) => /new session [0-9a-f]{8}/.test(text),
      60_000,
    );
    spark.keys(pane, "ask the slow server", "Enter");
    const first = await answer("first turn", "The slow server is not up yet.");
    // Refused at once, not after the server's start: its duration was 0 ms, and 12 ms once in a
    // full run's load, so it is read rather than matched.
    const refused =
      /✗ slow__late_answer \(invalid call\) (\d+) ms — slow__late_answer is not available now: MCP server "slow" starting/.exec(
        flat(first),
      );
    expect(refused, flat(first)).not.toBeNull();
    expect(Number(refused?.[1])).toBeLessThan(1_000);
    const early = await mcpUntil("slow starting", () => true);
    expect(early).toMatch(/^slow: starting$/m);
    expect(flat(first)).toContain(
      `(this project) declares MCP server "repo" ("touch ${marker}"): not started; to allow it`,
    );
    expect(early).toContain(
      'repo: not started: this project\'s config declares it; to run it, add "repo" to [mcp] trusted_project_servers in your own config',
    );
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  it("/mcp shows each server ready later with the tools the model sees; the slow one's tool works", async () => {
    // The first case saw it starting: now it may finish (a fixed 10 s start was idle time).
    writeFileSync(slowStartFile, "");
    const ready = await mcpUntil(
      "all ready",
      (rows) => (rows.match(/^\w+: ready/gm) ?? []).length === 3,
      60_000,
    );
    expect(ready).toMatch(/^everything: ready, \d+ tools \(everything__echo, /m);
    expect(ready).toContain("everything__trigger-long-running-operation");
    expect(ready).toMatch(/^slow: ready, 1 tool \(slow__late_answer\)$/m);
    expect(ready).toMatch(/^crashy: ready, 2 tools \(crashy__crash_now, crashy__alive\)$/m);
    spark.keys(pane, "ask it again", "Enter");
    const again = await answer("slow answered", "The slow server answered.");
    expect(again).toMatch(/✓ slow__late_answer \{"question":"and now\?"\}/);
    expect(again).not.toContain("Script turn");
  }, 120_000);

  it("asks for approval of an MCP call in the TUI; the approved result reaches the model", async () => {
    spark.keys(pane, "echo something", "Enter");
    const asked = await answer("approval", "wants to");
    const prompt = asked.slice(asked.lastIndexOf("wants to"));
    expect(prompt).toContain('everything__echo {"message":"hello from tmux"}');
    // Asked as a call of the tool, not as a shell command in the workspace.
    expect(flat(prompt)).toContain("wants to call the tool echo of MCP server everything");
    expect(flat(prompt)).toContain("every call of echo without asking in this session");
    expect(prompt).not.toContain("run a command");
    spark.keys(pane, "y");
    // The TUI shows a successful tool's row, not its output: the script's expectation on the next
    // model call is what proves "Echo: hello from tmux" reached the model (else "Script turn …").
    const echoed = await answer("echoed", "The echo came back.");
    expect(echoed).toMatch(/✓ everything__echo \{"message":"hello from tmux"\}/);
    expect(echoed).not.toContain("Script turn");
  });

  it("reports a timeout and a crash mid-call in the transcript, and the session goes on", async () => {
    spark.keys(pane, "run the long operation", "Enter");
    await server.waitForPane(
      pane,
      "long operation asked",
      (text) => occurrences(text, /wants to/) === 1,
    );
    spark.keys(pane, "y");
    const timedOut = await answer("timed out", "That one timed out.");
    expect(flat(timedOut)).toContain(
      '✗ everything__trigger-long-running-operation {"duration":60,"steps":2}',
    );
    expect(flat(timedOut)).toContain(
      'The MCP server "everything" did not answer trigger-long-running-operation within 1500 ms',
    );

    spark.keys(pane, "crash it", "Enter");
    const crashed = await answer("crashed", "The crashy server died.");
    expect(flat(crashed)).toContain('✗ crashy__crash_now {"reason":"in tmux"}');
    expect(flat(crashed)).toContain('The MCP server "crashy" exited during the call');
    const after = await mcpUntil("crashy after the crash", (rows) => /^crashy: /m.test(rows));
    expect(after).toMatch(
      /^crashy: (restarting \(exited.*\); retrying in 1 s|starting again after a failure \(exited|ready)/m,
    );

    spark.keys(pane, "are you still there?", "Enter");
    const last = await answer("still there", "Still here after the crash.");
    expect(last).not.toContain("spark exited");
    expect(last).not.toContain("Script turn");
  }, 120_000);
});
