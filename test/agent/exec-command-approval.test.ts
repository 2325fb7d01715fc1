// What the user's words approve in `spark exec` (issue 8): the scripted "model" smuggles a second
// command into the one the user asked for, through every shell feature family, and runs a
// command the user said never to run. Only the exact plain command runs.
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { createAgentWorkspace, type AgentWorkspace } from "./support/agent-workspace.ts";
import { script, spark } from "./support/spark-exec.ts";

let workspace: AgentWorkspace;
afterEach(() => workspace.remove());

type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

async function runCommands(userText: string, commands: string[]): Promise<ToolResult[]> {
  const file = script(workspace, "commands.jsonl", [
    {
      text: "Running.",
      toolCalls: commands.map((command) => ({ name: "run_command", arguments: { command } })),
    },
    { text: "Done." },
  ]);
  const run = await spark(workspace, ["exec", "--json", "--model", `script:${file}`, userText]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  const results = run.events.filter((event): event is ToolResult => event.type === "tool-result");
  expect(results).toHaveLength(commands.length);
  return results;
}

describe("spark exec command approval", () => {
  it("runs only the plain command the user named, never one smuggled inside it", async () => {
    workspace = createAgentWorkspace();
    const marker = (name: string) => path.join(path.dirname(workspace.root), name);
    const smuggled: [family: string, command: string, touches?: string][] = [
      ["$(…)", `echo ok $(touch ${marker("dollar-paren")})`, "dollar-paren"],
      ["`…`", `echo ok \`touch ${marker("backtick")}\``, "backtick"],
      ['inside "…"', `echo ok "$(touch ${marker("quoted")})"`, "quoted"],
      ["$NAME", "echo ok $HOME"],
      ["${…}", `echo ok \${X:=$(touch ${marker("parameter")})}`, "parameter"],
      ["redirection >", `echo ok > ${marker("redirect")}`, "redirect"],
      ["redirection >", `echo ok >> ${marker("append")}`, "append"],
      ["redirection <", "echo ok < /etc/hostname"],
      ["redirection <", "echo ok << EOF"],
      ["redirection >", "echo ok 2>&1"],
      ["redirection &>", `echo ok &> ${marker("both")}`, "both"],
      ["chaining ;", `echo ok; touch ${marker("semicolon")}`, "semicolon"],
      ["chaining &&", `echo ok && touch ${marker("and")}`, "and"],
      ["chaining ||", `echo ok || touch ${marker("or")}`, "or"],
      ["pipe |", `echo ok | touch ${marker("pipe")}`, "pipe"],
      ["background job &", `echo ok & touch ${marker("background")}`, "background"],
      ["newline", `echo ok\ntouch ${marker("newline")}`, "newline"],
      ["subshell", `(echo ok; touch ${marker("subshell")})`, "subshell"],
      ["grouping", `{ echo ok; touch ${marker("group")}; }`, "group"],
      ["process substitution <(…)", `echo ok <(touch ${marker("process")})`, "process"],
      ["process substitution >(…)", "echo ok >(cat)"],
      ["glob *", "echo ok *"],
      ["comment #", `echo ok # ${marker("comment")}`],
      ["environment assignment", "PATH=/tmp echo ok"],
      ["tilde", "echo ok ~"],
    ];
    const results = await runCommands("please run echo ok", [
      ...smuggled.map(([, command]) => command),
      "echo ok",
    ]);
    const plain = results.pop();
    expect(plain).toMatchObject({ isError: false, output: "ok\n[exit code 0]" });
    for (const [index, [family, command, touches]] of smuggled.entries()) {
      const result = results[index];
      expect(result?.output, command).toMatch(/^not approved: ask the user/);
      expect(result?.output, command).toContain(family);
      expect(result?.output, command).toContain(command);
      if (touches !== undefined) expect(existsSync(marker(touches)), command).toBe(false);
    }
  });

  it("does not run a command the user said never to run", async () => {
    workspace = createAgentWorkspace();
    const results = await runCommands(
      "Never run `touch x`. Don't run touch y, and do not run touch z either. Run `ls`.",
      ["touch x", "touch y", "touch z", "ls"],
    );
    for (const result of results.slice(0, 3)) {
      expect(result.output).toMatch(/^not approved: ask the user.*did not ask for exactly this/);
    }
    expect(results[3]).toMatchObject({ isError: false });
    for (const name of ["x", "y", "z"]) {
      expect(existsSync(path.join(workspace.root, name)), name).toBe(false);
    }
  });

  it("runs the whole command as written once --allow-commands approves it", async () => {
    workspace = createAgentWorkspace();
    const file = script(workspace, "allowed.jsonl", [
      {
        text: "Running.",
        toolCalls: [{ name: "run_command", arguments: { command: "echo $((6 * 7)) | cat" } }],
      },
      { text: "Done." },
    ]);
    const run = await spark(workspace, [
      "exec",
      "--json",
      "--allow-commands",
      "--model",
      `script:${file}`,
      "anything",
    ]);
    expect(run.events.find((event) => event.type === "tool-result")).toMatchObject({
      isError: false,
      output: "42\n[exit code 0]",
    });
  });
});
