// The grammar a structured-output answer is sampled under, the same GBNF for both decode loops:
// node-llama-cpp builds it from the checked schema, then its numbers are bounded and its root
// ends with the value, so a finished answer always parses and always fits the schema.
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { OutputFormat } from "../../engine.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import { grammarEndingAtValue } from "../tool-calls/tool-call-schema.ts";
import { grammarSchemaFor } from "./grammar-schema.ts";

/** json_object: one object whose members are any JSON. */
const ANY_OBJECT = { type: "object", additionalProperties: true };

/**
 * node-llama-cpp's number rules allow 16 digits and any exponent: `1e999` parses to Infinity and
 * 16 digits pass Number.MAX_SAFE_INTEGER, which a schema's integer (zod's `.int()`) forbids. At
 * most 15 digits and no exponent keep every number below GRAMMAR_NUMBER_LIMIT and exact.
 */
const NUMBER_RULES: ReadonlyMap<string, { built: string; bounded: string }> = new Map([
  [
    "integer-number-rule",
    {
      built: `"-"? ("0" | [1-9] [0-9]{0,15}) ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?`,
      bounded: `"-"? ("0" | [1-9] [0-9]{0,14})`,
    },
  ],
  [
    "fractional-number-rule",
    {
      built: `"-"? ("0" | [1-9] [0-9]{0,15}) ("." [0-9]{1,16})? ([eE] [-+]? ("0" | [1-9] [0-9]{0,15}))?`,
      bounded: `"-"? ("0" | [1-9] [0-9]{0,14}) ("." [0-9]{1,16})?`,
    },
  ],
]);

export function boundedNumberRules(gbnf: string): string {
  return gbnf.replace(/^([\w-]+) ::= (.*)$/gm, (line, name: string, body: string) => {
    const rule = NUMBER_RULES.get(name);
    if (rule === undefined) return line;
    // A node-llama-cpp upgrade that changed the rule must be looked at, not silently kept.
    if (body !== rule.built) {
      throw new SparkError("internal_error", `node-llama-cpp's ${name} changed: ${body}`);
    }
    return `${name} ::= ${rule.bounded}`;
  });
}

/** Compiles the format's grammar; a schema the grammar cannot enforce is an invalid_request. */
export async function compileOutputFormatGrammar(
  llama: Llama,
  format: OutputFormat,
): Promise<LlamaGrammar> {
  const schema =
    format.type === "json_object" ? ANY_OBJECT : grammarSchemaFor(format.schema, format.name);
  let built: LlamaGrammar;
  try {
    built = await llama.createGrammarForJsonSchema(schema as never);
  } catch (error) {
    const asked = format.type === "json_schema" ? `the JSON schema "${format.name}"` : "JSON";
    throw new SparkError(
      "invalid_request",
      `Structured output: the embedded llama.cpp engine could not turn ${asked} into a grammar: ` +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return llama.createGrammar({
    grammar: grammarEndingAtValue(boundedNumberRules(built.grammar)),
    rootRuleName: built.rootRuleName,
  });
}
