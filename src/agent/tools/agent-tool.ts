// What a tool is to the agent: a zod schema the model sees as JSON schema, and an execute step
// that gets typed arguments. defineTool erases the argument type behind a validating prepare().
import { z } from "zod";
import type { ToolDefinition } from "../../engines/engine.ts";
import type { AppliedEdit } from "../../protocol/agent/index.ts";
import type { FileReadLedger, UndoStack } from "../edits/index.ts";
import type { CommandSandbox } from "../sandbox/command-sandbox.ts";
import type { CommandApproval } from "../approval/command-approval.ts";

export interface ToolContext {
  /** Real path of the workspace root; every path a tool touches resolves inside it. */
  workspaceRoot: string;
  ledger: FileReadLedger;
  undoStack: UndoStack;
  /** Aborted by interrupt/steer: a tool stops at once and returns what it has. */
  signal: AbortSignal;
  commandApproval: CommandApproval;
  /** What run_command's children run inside (bubblewrap, or nothing). */
  commandSandbox: CommandSandbox;
  /** Everything the user wrote in the current turn (their message plus steers), for approvals. */
  userTextThisTurn: string;
}

export interface ToolResult {
  output: string;
  isError?: boolean;
  edits?: AppliedEdit[];
  /** Says how to get the rest when the registry cuts the output after `keptLines` lines. */
  continuation?: (keptLines: number) => string;
  /** How long the work itself took, where execute also waited (run_command: for an approval). */
  runMs?: number;
}

export interface ToolSpec<Schema extends z.ZodType> {
  name: string;
  description: string;
  parameters: Schema;
  /** Which end of a long output matters: "head" (default) or "tail" (command output). */
  keep?: "head" | "tail";
  /** One line for people watching the run, e.g. "read_file src/a.ts:10-40". */
  summarize: (args: z.infer<Schema>) => string;
  execute: (args: z.infer<Schema>, context: ToolContext) => Promise<ToolResult>;
}

export interface PreparedToolCall {
  summary: string;
  run: (context: ToolContext) => Promise<ToolResult>;
}

export interface AgentTool {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly keep: "head" | "tail";
  readonly parameters: z.ZodType;
  /** Parses the model's JSON arguments; an error string is worded for the model to fix its call. */
  prepare(argumentsJson: string): PreparedToolCall | { error: string };
}

export function defineTool<Schema extends z.ZodType>(spec: ToolSpec<Schema>): AgentTool {
  const parameters = z.toJSONSchema(spec.parameters, { io: "input" }) as Record<string, unknown>;
  delete parameters.$schema;
  return {
    name: spec.name,
    definition: { name: spec.name, description: spec.description, parameters },
    keep: spec.keep ?? "head",
    parameters: spec.parameters,
    prepare(argumentsJson) {
      let raw: unknown;
      try {
        raw = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
      } catch (error) {
        return {
          error: `The arguments for ${spec.name} are not valid JSON (${(error as Error).message}). Send one JSON object matching the tool's parameters.`,
        };
      }
      const parsed = spec.parameters.safeParse(raw);
      if (!parsed.success) return { error: describeIssues(spec.name, parsed.error) };
      const args = parsed.data;
      return { summary: spec.summarize(args), run: (context) => spec.execute(args, context) };
    },
  };
}

function describeIssues(toolName: string, error: z.ZodError): string {
  const lines = error.issues.map((issue) => {
    const where = issue.path.length === 0 ? "arguments" : `"${issue.path.join(".")}"`;
    if (issue.code === "invalid_type" && issue.input === undefined)
      return `- ${where} is required (${issue.message.replace(/^Invalid input: /, "")})`;
    if (issue.code === "unrecognized_keys")
      return `- unknown parameter(s) ${issue.keys.map((key) => `"${key}"`).join(", ")}; remove them`;
    return `- ${where}: ${issue.message}`;
  });
  return `Invalid arguments for ${toolName}:\n${lines.join("\n")}\nFix the call and try again.`;
}
