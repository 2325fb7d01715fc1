// A request's tools as the engine sees them and back: function tools pass as they are, a
// namespace's tools are flattened to `namespace__name`, a freeform `custom` tool becomes a
// function with one string parameter `input`, and hosted tools (web_search, …) are dropped.
import type { ToolDefinition } from "../../engines/engine.ts";
import type { ResponseEchoedTool } from "../../protocol/responses-events.ts";
import type { MemberTool, ResponseTool } from "../../protocol/responses-requests.ts";
import { checkSchemaSizeAt } from "../wire/schema-error.ts";
import type { ClientTool } from "../store/gateway-store.ts";
import { WireError } from "../wire/wire-error.ts";

export interface RequestTools {
  /** For the engine; empty when the request has none. */
  definitions: ToolDefinition[];
  /** Echoed on the response object. */
  echoed: ResponseEchoedTool[];
  /** Hosted tool types the engine cannot run, dropped from the request. */
  dropped: string[];
  /** Engine-side tool name → how the client knows it. */
  byEngineName: Map<string, ClientTool>;
}

const NAMESPACE_SEPARATOR = "__";

export function engineToolName(name: string, namespace: string | undefined): string {
  return namespace === undefined ? name : `${namespace}${NAMESPACE_SEPARATOR}${name}`;
}

/** The engine-side arguments of a custom tool call: `{"input": text}`. */
export function customToolArguments(input: string): string {
  return JSON.stringify({ input });
}

/** A custom call's free text from the engine's arguments; text that is not `{"input": …}` JSON
 * (a model that ignored the schema) is passed through as the input itself. */
export function customToolInput(engineArguments: string): string {
  try {
    const parsed: unknown = JSON.parse(engineArguments);
    if (typeof parsed === "object" && parsed !== null && "input" in parsed) {
      if (typeof parsed.input === "string") return parsed.input;
    }
  } catch {
    // Not JSON: fall through.
  }
  return engineArguments;
}

export function requestTools(tools: ResponseTool[] | undefined): RequestTools {
  const result: RequestTools = {
    definitions: [],
    echoed: [],
    dropped: [],
    byEngineName: new Map(),
  };
  (tools ?? []).forEach((tool, index) => {
    const param = `tools[${index}]`;
    if (tool.type === "namespace") {
      const namespace = requireName(tool, param);
      const members: ResponseEchoedTool[] = [];
      (tool.tools ?? []).forEach((member, memberIndex) => {
        const added = addMember(result, member, namespace, `${param}.tools[${memberIndex}]`);
        if (added !== undefined) members.push(added);
      });
      result.echoed.push({
        type: "namespace",
        name: namespace,
        description: tool.description ?? "",
        tools: members as Extract<ResponseEchoedTool, { type: "namespace" }>["tools"],
      });
      return;
    }
    const added = addMember(result, tool, undefined, param);
    if (added !== undefined) result.echoed.push(added);
  });
  return result;
}

function addMember(
  result: RequestTools,
  tool: MemberTool,
  namespace: string | undefined,
  param: string,
): ResponseEchoedTool | undefined {
  if (tool.type !== "function" && tool.type !== "custom") {
    // Hosted tools run on OpenAI's side; no engine here can run them, and a client that offers
    // one (Codex offers web_search) still works without it.
    result.dropped.push(tool.type);
    return undefined;
  }
  const name = requireName(tool, param);
  const engineName = engineToolName(name, namespace);
  if (result.byEngineName.has(engineName)) {
    throw new WireError(
      "invalid_request",
      `${param}: a tool named '${engineName}' appears twice.`,
      {
        param,
      },
    );
  }
  const description = typeof tool.description === "string" ? tool.description : undefined;
  if (tool.type === "function") {
    const parameters = tool.parameters ?? { type: "object", properties: {} };
    // A forced call samples under a grammar built from these parameters.
    checkSchemaSizeAt(parameters, `${param}.parameters`);
    result.definitions.push({
      name: engineName,
      parameters,
      ...(description === undefined ? {} : { description }),
    });
    result.byEngineName.set(engineName, {
      kind: "function",
      name,
      ...(namespace === undefined ? {} : { namespace }),
    });
    return {
      type: "function",
      name,
      description: description ?? null,
      parameters,
      strict: tool.strict ?? null,
    };
  }
  result.definitions.push({
    name: engineName,
    description: customToolDescription(description, tool.format),
    parameters: {
      type: "object",
      properties: { input: { type: "string", description: "The tool's free-text input." } },
      required: ["input"],
      additionalProperties: false,
    },
  });
  result.byEngineName.set(engineName, {
    kind: "custom",
    name,
    ...(namespace === undefined ? {} : { namespace }),
  });
  return {
    type: "custom",
    name,
    ...(description === undefined ? {} : { description }),
    ...(tool.format == null ? {} : { format: tool.format as never }),
  };
}

/** The model learns the free-text format from the description, since its input is one string. */
function customToolDescription(
  description: string | undefined,
  format: MemberTool["format"],
): string {
  const parts = [description ?? ""];
  if (format?.type === "grammar" && typeof format.definition === "string") {
    const syntax = typeof format.syntax === "string" ? format.syntax : "lark";
    parts.push(`The input must match this ${syntax} grammar:\n${format.definition}`);
  }
  return parts.filter((part) => part !== "").join("\n\n");
}

function requireName(tool: { name?: string | undefined; type: string }, param: string): string {
  if (tool.name !== undefined && tool.name !== "") return tool.name;
  throw new WireError("invalid_request", `${param}: a '${tool.type}' tool needs a name.`, {
    param: `${param}.name`,
  });
}
