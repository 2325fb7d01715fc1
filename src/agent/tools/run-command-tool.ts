// run_command: a shell command in the workspace, only when the user asked for it this turn or
// approved it; with a timeout, an output cap (the registry's, keeping the tail) and interrupt.
import { z } from "zod";
import { defineTool } from "./agent-tool.ts";
import { decideCommand } from "../approval/command-approval.ts";
import { runProcess } from "./run-process.ts";

const DEFAULT_TIMEOUT_MS = 120_000;

const parameters = z.strictObject({
  command: z.string().min(1).describe("The shell command to run in the workspace root."),
  timeoutMs: z
    .int()
    .min(1000)
    .max(600_000)
    .optional()
    .describe("Kill the command after this many milliseconds. Default 120000."),
});

export const runCommandTool = defineTool({
  name: "run_command",
  description:
    "Run a shell command in the workspace root and get its exit code and output (stdout and stderr together). Only run commands the user asked for, such as the tests or a build they named; anything else is refused unless the user approves it. Long output keeps its last lines.",
  parameters,
  keep: "tail",
  summarize: ({ command }) => `run_command ${command}`,
  async execute({ command, timeoutMs }, context) {
    const decision = await decideCommand(
      context.commandApproval,
      { command, cwd: context.workspaceRoot },
      context.userTextThisTurn,
      context.signal,
      {
        sandboxed: context.commandSandbox.kind !== "none",
        passEnvironment: context.commandSandbox.passEnvironment,
      },
    );
    if (!decision.approved) {
      return {
        output: `not approved: ask the user. \`${command}\` was not run: ${decision.reason}. Say which command you want to run and why, and wait for the user's answer; a plain command the user names runs without asking.`,
        isError: true,
      };
    }
    const timeout = timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Timed from here: the wait for the user's approval above is not the command's run time.
    const startedAt = performance.now();
    const outcome = await runProcess({
      command: decision.shellCommand,
      cwd: context.workspaceRoot,
      workspaceRoot: context.workspaceRoot,
      sandbox: context.commandSandbox,
      timeoutMs: timeout,
      signal: context.signal,
    });
    const runMs = performance.now() - startedAt;
    if (outcome.spawnError !== undefined) {
      return {
        runMs,
        output: `The command could not be started: ${outcome.spawnError.message}`,
        isError: true,
      };
    }
    const output = outcome.output.trimEnd();
    const body = output === "" ? "(no output)" : output;
    if (outcome.aborted)
      return { output: `${body}\n[interrupted by the user]`, isError: true, runMs };
    if (outcome.timedOut) {
      return {
        output: `${body}\n[killed: still running after ${timeout} ms]`,
        isError: true,
        runMs,
      };
    }
    const status =
      outcome.exitCode === null
        ? `killed by ${outcome.signal ?? "a signal"}`
        : `exit code ${outcome.exitCode}`;
    return { output: `${body}\n[${status}]`, runMs };
  },
});
