// The terminal UI in a real terminal: tmux runs `spark --model script:…` in a temporary git
// repository; a burst with Ctrl+U runs only /help, send-keys types a task (Delete and Backspace
// edit it), a steer lands mid-stream and changes the next model call,
// the agent edits a file, Esc interrupts a second answer mid-stream, /undo restores the file on
// disk, and Ctrl+C twice quits, saying how to resume. capture-pane shows (and the log prints)
// each step.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import { hasTmux, SPARK, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
if (!hasTmux && !inCi)
  console.log(
    "Skipping the terminal UI's tmux test: tmux is not installed (apt-get install tmux).",
  );

const server = tmuxServer("spark-tui-test");
const tmux = (...args: string[]): string => server.run(...args);
const waitForPane = (step: string, predicate: (pane: string) => boolean): Promise<string> =>
  server.waitForPane("tui", step, predicate);

const count = (text: string, pattern: RegExp): number => text.match(pattern)?.length ?? 0;

const PATCH = [
  "*** Begin Patch",
  "*** Update File: src/greet.ts",
  '-export const greeting = "hello";',
  '+export const salutation = "hello";',
  "*** End Patch",
].join("\n");
const SLOW_ANSWER = Array.from(
  { length: 8 },
  () => "I will rename the greeting constant across the project, checking each use",
).join(" ");

let workspace: AgentWorkspace;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) in tmux", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    workspace = createAgentWorkspace();
    workspace.write("src/greet.ts", 'export const greeting = "hello";\n');
    execFileSync("git", ["init", "-q"], { cwd: workspace.root });
    const script = path.join(path.dirname(workspace.sessionsDirectory), "turns.jsonl");
    const turns = [
      { text: SLOW_ANSWER, delayMs: 60 },
      {
        text: "Understood, salutation it is.",
        toolCalls: [{ name: "read_file", arguments: { path: "src/greet.ts" } }],
        // The steer must reach this model call, or the scripted engine fails the turn.
        expect: { anyMessageIncludes: "call it salutation" },
      },
      { text: "Patching.", toolCalls: [{ name: "apply_patch", arguments: { patch: PATCH } }] },
      { text: "Renamed greeting to salutation.", expect: { lastMessageIncludes: "Patch applied" } },
      { text: SLOW_ANSWER, delayMs: 60 },
    ];
    writeFileSync(script, turns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
    const sparkHome = path.dirname(workspace.sessionsDirectory);
    const command = `env SPARK_HOME='${sparkHome}' '${process.execPath}' '${SPARK}' --model 'script:${script}'; echo "spark exited with $?"; sleep 600`;
    tmux("new-session", "-d", "-s", "tui", "-x", "120", "-y", "50", "-c", workspace.root, command);
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    workspace?.remove();
  });

  it("streams, steers, edits, interrupts, undoes and quits", async () => {
    // The session opens with a header naming its workspace (issue 27).
    const started = await waitForPane("started", (pane) => pane.includes("✻ Spark"));
    expect(started).toMatch(/new session [0-9a-f]{8}/);
    expect(started).toMatch(/workspace \/\S+/);

    // One burst with a Ctrl+U inside: each key applies in order, so only /help runs (issue 27).
    tmux("send-keys", "-t", "tui", "zz", "C-u", "/help", "Enter");
    const helped = await waitForPane("burst", (pane) => pane.includes("Commands:"));
    expect(helped).not.toContain("zz");

    // Delete removes the character under the cursor, Backspace the one before it.
    tmux("send-keys", "-t", "tui", "rename the greetingXY", "Left", "DC", "BSpace", "Enter");
    const streaming = await waitForPane("streaming", (pane) =>
      /● I will rename the greeting/.test(pane),
    );
    expect(streaming).toMatch(/^› rename the greeting$/m);

    tmux("send-keys", "-t", "tui", "no, call it salutation", "Enter");
    const steered = await waitForPane("steered, edited", (pane) =>
      pane.includes("Renamed greeting to salutation."),
    );
    expect(steered).toContain("⏹ interrupted (steered)");
    expect(steered).toContain("↪ steer › no, call it salutation");
    expect(steered).toContain("✓ apply_patch src/greet.ts");
    expect(steered).toContain("Edited src/greet.ts +1 -1");
    expect(steered).toContain('+export const salutation = "hello";');
    expect(workspace.read("src/greet.ts")).toBe('export const salutation = "hello";\n');

    tmux("send-keys", "-t", "tui", "say more", "Enter");
    await waitForPane("second answer streaming", (pane) => count(pane, /● I will rename/g) >= 2);
    tmux("send-keys", "-t", "tui", "Escape");
    const interrupted = await waitForPane(
      "interrupted",
      (pane) => /^⏹ interrupted$/m.test(pane) && pane.includes("idle ·"),
    );
    // Interrupted mid-stream: the partial answer is kept and marked, and it is not the whole.
    const partial = interrupted.split("› say more")[1] ?? "";
    expect(partial).toMatch(/● I will rename[^\n]* ⏹/);
    expect(count(partial, /checking each use/g)).toBeLessThan(8);

    tmux("send-keys", "-t", "tui", "/undo", "Enter");
    const undone = await waitForPane("undone", (pane) => pane.includes("↶ Undid the last edit"));
    expect(undone).toContain("restored src/greet.ts");
    expect(workspace.read("src/greet.ts")).toBe('export const greeting = "hello";\n');

    tmux("send-keys", "-t", "tui", "C-c");
    await waitForPane("first Ctrl+C", (pane) => pane.includes("Press Ctrl+C again to quit."));
    tmux("send-keys", "-t", "tui", "C-c");
    const quit = await waitForPane("quit", (pane) => pane.includes("spark exited with 0"));
    // The way back to this session (issue 27).
    expect(quit).toMatch(/Resume this session with: spark --session [0-9a-f]{8}\n/);
  });
});
