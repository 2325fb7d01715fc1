// An answer with Markdown in a real terminal that is widened afterwards: the Markdown is rendered
// (no backticks, stars or fences on screen) and the lines the terminal wrapped at 60 columns
// reflow at 120, so a long code line copies out whole (issue 27: lines were cut by the UI at the
// width they arrived at, and code copied out carried those breaks).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import { hasTmux, SPARK, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-markdown");
const CODE_LINE =
  'export const greetings = ["hello", "hi", "hey", "good morning"]; // every greeting we know';
const ANSWER = [
  "## Plan",
  "",
  "Rename **greeting** to `salutation` in:",
  "- `src/greet.ts`",
  "",
  "```ts",
  CODE_LINE,
  "```",
  "Done.",
].join("\n");

let workspace: AgentWorkspace;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) Markdown and reflow in tmux", () => {
  beforeAll(() => {
    workspace = createAgentWorkspace();
    execFileSync("git", ["init", "-q"], { cwd: workspace.root });
    const script = path.join(path.dirname(workspace.sessionsDirectory), "turns.jsonl");
    writeFileSync(script, `${JSON.stringify({ text: ANSWER })}\n`);
    const sparkHome = path.dirname(workspace.sessionsDirectory);
    const command = `env SPARK_HOME='${sparkHome}' '${process.execPath}' '${SPARK}' --model 'script:${script}'; sleep 600`;
    server.run(
      "new-session",
      "-d",
      "-s",
      "md",
      "-x",
      "60",
      "-y",
      "40",
      "-c",
      workspace.root,
      command,
    );
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    workspace?.remove();
  });

  it("renders the Markdown and reflows long lines when the terminal is widened", async () => {
    await server.waitForPane("md", "started", (pane) => pane.includes("idle ·"));
    server.run("send-keys", "-t", "md", "show the plan", "Enter");
    const narrow = await server.waitForPane("md", "answered at 60 columns", (pane) =>
      pane.includes("Done."),
    );
    expect(narrow).toContain("● Plan");
    expect(narrow).toContain("Rename greeting to salutation in:");
    expect(narrow).toContain("• src/greet.ts");
    expect(narrow).not.toMatch(/```|\*\*|`/);

    server.run("resize-window", "-t", "md", "-x", "120");
    const wide = await server.waitForPane("md", "widened to 120 columns", (pane) =>
      pane.includes(CODE_LINE.slice(0, 100)),
    );
    // The code line is one line again: the terminal, not the UI, had wrapped it.
    expect(wide.split("\n")).toContain(CODE_LINE);
    const rows = server.run("capture-pane", "-p", "-t", "md").split("\n");
    expect(rows).toContain(CODE_LINE);
  });
});
