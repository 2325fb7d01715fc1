// The tools offered to the model: their JSON-schema definitions, and one execute path that
// validates arguments, turns thrown errors into tool errors the model can act on, and caps output.
import type { ToolCall, ToolDefinition } from "../../engines/engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { AgentTool, AppliedEdit, ToolContext } from "./agent-tool.ts";
import { applyPatchTool } from "./apply-patch-tool.ts";
import { capToolOutput } from "./cap-tool-output.ts";
import { editTool } from "./edit-tool.ts";
import { listFilesTool } from "./list-files-tool.ts";
import { readFileTool } from "./read-file-tool.ts";
import { runCommandTool } from "./run-command-tool.ts";
import { searchTool } from "./search-tool.ts";

export const DEFAULT_TOOLS: readonly AgentTool[] = [
  readFileTool,
  listFilesTool,
  searchTool,
  applyPatchTool,
  editTool,
  runCommandTool,
];

export interface ToolExecution {
  output: string;
  isError: boolean;
  edits: AppliedEdit[];
  /** The tool's own run time when it waited for something first (see ToolResult.runMs). */
  runMs?: number;
}

export interface PreparedCall {
  /** One line for people: "read_file src/a.ts:1-40". */
  summary: string;
  run(context: ToolContext): Promise<ToolExecution>;
}

export class ToolRegistry {
  private readonly tools: Map<string, AgentTool>;

  constructor(tools: readonly AgentTool[] = DEFAULT_TOOLS) {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  get definitions(): ToolDefinition[] {
    return [...this.tools.values()].map((tool) => tool.definition);
  }

  prepare(call: ToolCall): PreparedCall {
    const tool = this.tools.get(call.name);
    if (tool === undefined) {
      const known = [...this.tools.keys()].join(", ");
      return failed(call.name, `There is no tool named "${call.name}". Available tools: ${known}.`);
    }
    const prepared = tool.prepare(call.arguments);
    if ("error" in prepared) return failed(call.name, prepared.error);
    return {
      summary: prepared.summary,
      async run(context) {
        try {
          const result = await prepared.run(context);
          return {
            output: capToolOutput(result.output, {
              keep: tool.keep,
              continuation: result.continuation,
            }),
            isError: result.isError === true,
            edits: result.edits ?? [],
            ...(result.runMs === undefined ? {} : { runMs: result.runMs }),
          };
        } catch (error) {
          return { output: describeFailure(error, context.signal), isError: true, edits: [] };
        }
      },
    };
  }
}

function failed(name: string, message: string): PreparedCall {
  return {
    summary: `${name} (invalid call)`,
    run: async () => ({ output: message, isError: true, edits: [] }),
  };
}

function describeFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "Interrupted by the user before the tool finished.";
  const sparkError = SparkError.from(error);
  // Edit errors and path errors are already worded for the model; anything else gets context.
  return sparkError.code === "invalid_request"
    ? sparkError.message
    : `The tool failed: ${sparkError.message}`;
}
