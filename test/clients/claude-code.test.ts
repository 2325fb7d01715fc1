// The real Claude Code (2.1.112 from npm) in `claude -p` mode against the real `spark serve` over a
// scripted model, through a proxy that records what it sends: it completes a task with its own
// tools (Read → Edit → Bash), streaming as it does by default; and with --output-format json, a
// stream that fails before any content makes it retry without streaming, which Spark answers too.
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ScriptTurnInput } from "../../src/engines/script/script-turn.ts";
import { claudeCodeMissingReason, runClaudeCode } from "./support/claude-code.ts";
import { startRecordingProxy, type RecordingProxy } from "./support/recording-proxy.ts";
import { startSparkServe, type SparkServeProcess } from "./support/spark-serve-process.ts";

const KEY = "claude-code-test-key";
const missing = claudeCodeMissingReason();
let server: SparkServeProcess | undefined;
let proxy: RecordingProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  await server?.stop();
  proxy = undefined;
  server = undefined;
});

/** A workspace holding greet.txt, and `spark serve` over the script `turnsFor(workspace)`. */
async function serveTask(
  turnsFor: (file: string) => ScriptTurnInput[],
): Promise<{ workspace: string; file: string; server: SparkServeProcess; proxy: RecordingProxy }> {
  const workspace = await mkdtemp(path.join(os.tmpdir(), "spark-claude-code-"));
  const file = path.join(workspace, "greet.txt");
  await writeFile(file, "hello world\n");
  const script = path.join(workspace, "..", `${path.basename(workspace)}-turns.jsonl`);
  await writeFile(
    script,
    turnsFor(file)
      .map((turn) => JSON.stringify(turn))
      .join("\n") + "\n",
  );
  server = await startSparkServe(
    `default_model = "scripted"\n[serve]\napi_keys = ["${KEY}"]\n` +
      `[models.scripted]\nengine = "script"\npath = "${script}"\n`,
    [],
    [workspace, script],
  );
  proxy = await startRecordingProxy(server.url);
  return { workspace, file, server, proxy };
}

const editTask = (file: string): ScriptTurnInput[] => [
  { text: "Reading it.", toolCalls: [{ name: "Read", arguments: { file_path: file } }] },
  {
    text: "Editing.",
    expect: { lastMessageRole: "tool", lastMessageIncludes: "hello world" },
    toolCalls: [
      {
        name: "Edit",
        arguments: { file_path: file, old_string: "hello world", new_string: "hi world" },
      },
    ],
  },
  {
    text: "Checking.",
    expect: { lastMessageRole: "tool", lastMessageIncludes: "updated" },
    toolCalls: [
      { name: "Bash", arguments: { command: "cat greet.txt", description: "Show the file" } },
    ],
  },
  {
    text: "Done: greet.txt now says hi world.",
    expect: { lastMessageRole: "tool", lastMessageIncludes: "hi world" },
  },
];

describe.skipIf(missing !== undefined)("Claude Code against spark serve", () => {
  it("edits a file with Read, Edit and Bash over streamed messages", async () => {
    const task = await serveTask(editTask);
    const run = await runClaudeCode({
      serverUrl: task.proxy.url,
      apiKey: KEY,
      prompt: "Change hello to hi in greet.txt",
      workspace: task.workspace,
    });
    expect(run.code, `${run.stdout}\n${run.stderr}\n${task.server.log()}`).toBe(0);
    expect(run.stdout).toContain("Done: greet.txt now says hi world.");
    expect(await readFile(task.file, "utf8")).toBe("hi world\n");

    // What it sends: a probe, then every turn streamed to /v1/messages?beta=true with its key,
    // API version, beta flags, thinking, its ~23 tools and its own model name.
    const [probe, ...turns] = task.proxy.requests;
    expect(probe).toMatchObject({ method: "HEAD", url: "/" });
    expect(turns).toHaveLength(4);
    for (const turn of turns) {
      expect(turn).toMatchObject({ method: "POST", url: "/v1/messages?beta=true" });
      expect(turn.headers).toMatchObject({ "x-api-key": KEY, "anthropic-version": "2023-06-01" });
      expect(turn.headers["anthropic-beta"]).toContain("claude-code-20250219");
      expect(turn.body?.stream).toBe(true);
      expect(String(turn.body?.model)).toMatch(/^claude-/);
    }
    const first = turns[0]?.body ?? {};
    expect(first.thinking).toBeDefined();
    const tools = (first.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(["Read", "Edit", "Bash"]));
    // Every claude-* name reached the default model.
    expect(task.server.log()).toMatch(/model=scripted status=completed/);
  });

  it("retries a failed stream without streaming, with --output-format json and ANTHROPIC_MODEL", async () => {
    const task = await serveTask((file) => [
      // Fails after message_start, before any content: Claude Code falls back to a plain request.
      { error: { code: "upstream_error", message: "the upstream dropped the stream" } },
      { text: "Reading it.", toolCalls: [{ name: "Read", arguments: { file_path: file } }] },
      {
        text: "It says hello world.",
        expect: { lastMessageRole: "tool", lastMessageIncludes: "hello world" },
      },
    ]);
    const run = await runClaudeCode({
      serverUrl: task.proxy.url,
      apiKey: KEY,
      prompt: "What does greet.txt say?",
      workspace: task.workspace,
      args: ["--output-format", "json"],
      // A route by name instead of Claude Code's own model names.
      env: { ANTHROPIC_MODEL: "fast" },
    });
    expect(run.code, `${run.stdout}\n${run.stderr}\n${task.server.log()}`).toBe(0);
    const result = JSON.parse(run.stdout) as { is_error: boolean; result: string };
    expect(result).toMatchObject({ is_error: false, result: "It says hello world." });
    const turns = task.proxy.requests.filter((request) => request.method === "POST");
    expect(turns.map((turn) => turn.body?.stream ?? false)).toEqual([true, false, true]);
    expect(turns.map((turn) => turn.body?.model)).toEqual(["fast", "fast", "fast"]);
    expect(task.server.log()).toMatch(/model=fast status=failed/);
    expect(task.server.log()).toMatch(/model=fast status=completed/);
  });
});
