// The JSON schema of one tool call, `{"name": …, "arguments": …}` for any of a request's tools, and
// the GBNF the native loop samples a call under (node-llama-cpp compiles the schema to GBNF).
import type { ToolDefinition } from "../../engine.ts";

export function toolCallSchema(tools: readonly ToolDefinition[]): object {
  const perTool = tools.map((tool) => ({
    type: "object",
    properties: { name: { const: tool.name }, arguments: stripAnnotations(tool.parameters) },
  }));
  return perTool.length === 1 ? (perTool[0] as object) : { oneOf: perTool };
}

/** node-llama-cpp's schema-to-grammar reads the structural keys; it rejects some annotations. */
function stripAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripAnnotations);
  if (schema === null || typeof schema !== "object") return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (
      key === "$schema" ||
      key === "additionalProperties" ||
      key === "default" ||
      key === "examples"
    )
      continue;
    result[key] =
      key === "properties" ? mapValues(value, stripAnnotations) : stripAnnotations(value);
  }
  return result;
}

function mapValues(value: unknown, transform: (entry: unknown) => unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, transform(entry)]));
}

/**
 * node-llama-cpp's JSON grammars end `root ::= <value> "\n\n\n\n" [\n]*` (its loop stops on the
 * four newlines). For the native loop the root ends with the value: a complete call then allows
 * only end of generation, which ends the job one token after the closing brace.
 */
export function grammarEndingAtValue(gbnf: string): string {
  const rootLine = /^root ::= (.*) "\\n\\n\\n\\n" \[\\n\]\*$/m;
  const match = rootLine.exec(gbnf);
  if (match === null) {
    throw new Error("node-llama-cpp's JSON grammar no longer ends its root with four newlines");
  }
  return gbnf.replace(rootLine, `root ::= ${match[1] ?? ""}`);
}
