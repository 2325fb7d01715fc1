// The grammar a structured-output answer is sampled under, the same GBNF for both decode loops:
// node-llama-cpp builds it from the checked schema, then its numbers are bounded and its root
// ends with the value, so a finished answer always parses and always fits the schema.
import type { Llama, LlamaGrammar } from "node-llama-cpp";
import type { OutputFormat } from "../../engine.ts";
import { checkSchemaSize } from "../../json-schema-size.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import { grammarEndingAtValue } from "../tool-calls/tool-call-schema.ts";
import type { GbnfBuilder } from "./gbnf-builder.ts";
import { checkGrammarRules } from "./grammar-rule-budget.ts";
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

/**
 * Compiles the format's grammar: the GBNF text on the builder's worker, then llama.cpp's parse.
 * A schema the grammar cannot enforce, or one over the size limits, is an invalid_request; a
 * request whose signal aborts stops waiting (and its build) with `cancelled`.
 */
export async function compileOutputFormatGrammar(
  llama: Llama,
  builder: GbnfBuilder,
  format: OutputFormat,
  signal?: AbortSignal,
): Promise<LlamaGrammar> {
  const asked = format.type === "json_schema" ? `the JSON schema "${format.name}"` : "JSON";
  let schema: object = ANY_OBJECT;
  if (format.type === "json_schema") {
    const tooLarge = checkSchemaSize(format.schema, `Structured output: ${asked}`);
    if (tooLarge !== undefined) throw tooLarge;
    schema = grammarSchemaFor(format.schema, format.name);
  }
  let text: string;
  try {
    text = await builder.build(schema, signal);
    checkGrammarRules(text, asked);
    text = grammarEndingAtValue(boundedNumberRules(text));
    return llama.createGrammar({ grammar: text });
  } catch (error) {
    if (error instanceof SparkError) throw error;
    throw new SparkError(
      "invalid_request",
      `Structured output: the embedded llama.cpp engine could not turn ${asked} into a grammar: ` +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
