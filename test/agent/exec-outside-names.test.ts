// Nothing outside the workspace reaches the model (issue 22), through the real `spark exec`: an
// AGENTS.md linked outside (or hard-linked) is named as skipped in the system prompt, never read;
// read_file and search refuse a hard-linked file; an edit to one replaces only the inside name.
import {
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

/** A folder beside the repository, outside the workspace, holding a secret. */
function outsideSecret(): string {
  const outside = path.join(path.dirname(workspace.root), "outside");
  mkdirSync(outside, { recursive: true });
  const secret = path.join(outside, "secret.txt");
  writeFileSync(secret, "SECRET-TOKEN=hunter2\n");
  return secret;
}

/** Runs one exec turn; `firstTurn` may carry tool calls and an `expect` on the request. */
async function exec(firstTurn: Record<string, unknown>): Promise<ToolResult[]> {
  const file = script(workspace, "turns.jsonl", [firstTurn, { text: "Done." }]);
  const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, "Go"]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return run.events.filter((event): event is ToolResult => event.type === "tool-result");
}

/** The system message the session sent the model, from the session log `spark exec` wrote. */
function loggedSystemPrompt(): string {
  const [log] = readdirSync(workspace.sessionsDirectory, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".jsonl"));
  if (log === undefined) throw new Error("spark exec wrote no session log");
  const text = readFileSync(path.join(workspace.sessionsDirectory, log), "utf8");
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line) as {
      type?: string;
      message?: { role?: string; content?: string };
    };
    if (record.type === "message" && record.message?.role === "system") {
      return record.message.content ?? "";
    }
  }
  throw new Error(`no system message in ${log}`);
}

describe("spark exec's system prompt never carries an AGENTS.md from outside", () => {
  it("skips an AGENTS.md linked outside the workspace and says why", async () => {
    workspace = createAgentWorkspace();
    symlinkSync(outsideSecret(), path.join(workspace.root, "AGENTS.md"));
    await exec({
      text: "Reading instructions.",
      expect: { anyMessageIncludes: "[AGENTS.md skipped: it is a symbolic link" },
    });
    const system = loggedSystemPrompt();
    expect(system).not.toContain("hunter2");
    expect(system).toContain(
      "[AGENTS.md skipped: it is a symbolic link (or inside one) whose real path is outside",
    );
  });

  it("skips an AGENTS.md hard-linked to a file outside", async () => {
    workspace = createAgentWorkspace();
    linkSync(outsideSecret(), path.join(workspace.root, "AGENTS.md"));
    await exec({ text: "Reading instructions." });
    const system = loggedSystemPrompt();
    expect(system).not.toContain("hunter2");
    expect(system).toContain("[AGENTS.md skipped: it has 2 hard links;");
  });

  it("still reads a regular AGENTS.md and one linked to a file inside", async () => {
    workspace = createAgentWorkspace();
    workspace.write("docs/agents.md", "Run the linter first.\n");
    symlinkSync("docs/agents.md", path.join(workspace.root, "AGENTS.md"));
    await exec({ text: "Reading.", expect: { anyMessageIncludes: "Run the linter first." } });
    expect(loggedSystemPrompt()).toContain("## Project instructions from AGENTS.md");
  });
});

describe("spark exec and hard links", () => {
  it("refuses to read or search a hard-linked file, naming the reason", async () => {
    workspace = createAgentWorkspace();
    linkSync(outsideSecret(), path.join(workspace.root, "innocent.txt"));
    workspace.write("src/plain.txt", "SECRET-TOKEN=inside\n");
    const [read, searchAll, searchFile] = await exec({
      text: "Reading.",
      toolCalls: [
        { name: "read_file", arguments: { path: "innocent.txt" } },
        { name: "search", arguments: { pattern: "SECRET" } },
        { name: "search", arguments: { pattern: "SECRET", path: "innocent.txt" } },
      ],
    });
    for (const result of [read, searchAll, searchFile])
      expect(result?.output).not.toContain("hunter2");
    expect(read?.isError).toBe(true);
    expect(read?.output).toContain(
      "innocent.txt has 2 hard links; Spark cannot tell whether its other names are outside the workspace, so it does not read it",
    );
    expect(searchAll?.output).toContain("src/plain.txt:1: SECRET-TOKEN=inside");
    expect(searchAll?.output).toContain("1 file has more than one hard link and was not searched");
    expect(searchFile?.output).toContain("1 file has more than one hard link and was not searched");
  });

  it("replaces a hard-linked file's inside name on edit or patch, leaving the outside name unchanged", async () => {
    workspace = createAgentWorkspace();
    const outside = path.join(path.dirname(workspace.root), "outside");
    mkdirSync(outside);
    const outsideNames = ["shared.txt", "patched.txt"].map((name) => path.join(outside, name));
    for (const [index, outsideName] of outsideNames.entries()) {
      writeFileSync(outsideName, "version = 1\n");
      linkSync(outsideName, path.join(workspace.root, index === 0 ? "shared.txt" : "patched.txt"));
    }
    const results = await exec({
      text: "Editing.",
      toolCalls: [
        {
          name: "edit",
          arguments: { path: "shared.txt", oldText: "version = 1", newText: "version = 2" },
        },
        {
          name: "apply_patch",
          arguments: {
            patch: [
              "*** Begin Patch",
              "*** Update File: patched.txt",
              "@@",
              "-version = 1",
              "+version = 3",
              "*** End Patch",
            ].join("\n"),
          },
        },
      ],
    });
    for (const result of results) expect(result.isError, result.output).toBe(false);
    expect(workspace.read("shared.txt")).toBe("version = 2\n");
    expect(workspace.read("patched.txt")).toBe("version = 3\n");
    for (const outsideName of outsideNames) {
      expect(readFileSync(outsideName, "utf8")).toBe("version = 1\n");
      expect(statSync(outsideName).nlink).toBe(1);
    }
  });
});
