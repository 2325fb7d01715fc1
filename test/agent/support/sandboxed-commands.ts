// Test helper for the command sandbox through the real `spark exec`: whether bwrap works here (the
// tests skip, saying why, where it does not, and fail under CI=true, where .ci/run installs it),
// a scratch folder the private /tmp does not cover, and one scripted turn that runs commands.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import type { AgentEvent } from "../../../src/agent/agent-events.ts";
import { probeCommandSandbox } from "../../../src/agent/sandbox/detect-command-sandbox.ts";
import type { AgentWorkspace } from "./agent-workspace.ts";
import { script, spark } from "./spark-exec.ts";

export type ToolResult = Extract<AgentEvent, { type: "tool-result" }>;

/** Outside /tmp (a folder the sandbox empties anyway), so what it hides is hidden by the fix. */
const CHECKOUT_SCRATCH = fileURLToPath(new URL("../../../.spark-test/sandbox/", import.meta.url));
export const OUTSIDE_TMP = CHECKOUT_SCRATCH.startsWith("/tmp/")
  ? "/var/tmp/spark-test-sandbox/"
  : CHECKOUT_SCRATCH;

/** Why the sandbox cannot run here, or undefined when it can. */
export async function missingSandbox(): Promise<string | undefined> {
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
  return missing;
}

/** One turn in which the scripted model runs `commands`, approved by --allow-commands. */
export async function runApprovedCommands(
  workspace: AgentWorkspace,
  commands: string[],
  environment: Record<string, string | undefined> = {},
): Promise<ToolResult[]> {
  const file = script(workspace, "commands.jsonl", [
    {
      text: "Running.",
      toolCalls: commands.map((command) => ({ name: "run_command", arguments: { command } })),
    },
    { text: "Done." },
  ]);
  const run = await spark(
    workspace,
    ["exec", "--json", "--allow-commands", "--model", `script:${file}`, "go"],
    undefined,
    environment,
  );
  expect(run.code, run.stderr).toBe(0);
  const results = run.events.filter((event): event is ToolResult => event.type === "tool-result");
  expect(results).toHaveLength(commands.length);
  return results;
}

export function scratchPath(...parts: string[]): string {
  return path.join(OUTSIDE_TMP, ...parts);
}
