// The tools offered to the model: their JSON-schema definitions, and one execute path that
// validates arguments, turns thrown errors into tool errors the model can act on, and caps output.
import type { ToolCall, ToolDefinition } from "../../engines/engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { AppliedEdit } from "../../protocol/agent/index.ts";
import type { AgentTool, ToolContext } from "./agent-tool.ts";
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

/** Tools that come and go while a session runs (MCP servers' tools as their servers start). */
export interface ToolSource {
  tools(): readonly AgentTool[];
  /** Why a tool the model named is not offered now (its server still starting), if this knows. */
  explainMissing?(name: string): string | undefined;
}

export class ToolRegistry {
  private readonly builtIn: Map<string, AgentTool>;
  /** The source tools the model was last told about (takeToolChanges); none told yet: undefined. */
  private told: Set<string> | undefined;

  constructor(
    tools: readonly AgentTool[] = DEFAULT_TOOLS,
    private readonly sources: readonly ToolSource[] = [],
  ) {
    this.builtIn = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /** Read before every model call, so tools that joined since the last one are offered. */
  get definitions(): ToolDefinition[] {
    return [...this.tools().values()].map((tool) => tool.definition);
  }

  /**
   * One line for the model's next message when source tools joined or left since it was last
   * told (the first call only records them: they are in the tool list from the start).
   */
  takeToolChanges(): string | undefined {
    const current = new Set(this.sources.flatMap((source) => source.tools().map((t) => t.name)));
    const told = this.told;
    this.told = current;
    if (told === undefined) return undefined;
    const joined = [...current].filter((name) => !told.has(name));
    const left = [...told].filter((name) => !current.has(name));
    const parts = [
      ...(joined.length === 0 ? [] : [`these tools joined: ${joined.join(", ")}`]),
      ...(left.length === 0 ? [] : [`these tools are gone for now: ${left.join(", ")}`]),
    ];
    return parts.length === 0 ? undefined : `[Since the last turn, ${parts.join("; ")}.]`;
  }

  private tools(): Map<string, AgentTool> {
    if (this.sources.length === 0) return this.builtIn;
    const tools = new Map(this.builtIn);
    for (const source of this.sources) {
      // A source cannot replace a built-in tool (an MCP server naming one "run_command").
      for (const tool of source.tools()) if (!tools.has(tool.name)) tools.set(tool.name, tool);
    }
    return tools;
  }

  prepare(call: ToolCall): PreparedCall {
    const tools = this.tools();
    const tool = tools.get(call.name);
    if (tool === undefined) {
      const known = [...tools.keys()].join(", ");
      const why = this.sources.map((source) => source.explainMissing?.(call.name)).find(Boolean);
      return failed(
        call.name,
        why ?? `There is no tool named "${call.name}". Available tools: ${known}.`,
      );
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
