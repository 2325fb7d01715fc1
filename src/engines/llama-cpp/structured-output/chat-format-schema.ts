// The JSON Schema a structured-output request gives, checked for llama.cpp's json-schema-to-grammar
// (common/json-schema.cpp and json-schema-to-grammar.cpp), which the chat-format path samples under.
// That converter enforces more than node-llama-cpp's (pattern, uuid, minLength, integer bounds,
// minItems, required) but still drops some keywords without a word: each of those is refused here
// by name and place, so an answer never silently breaks the schema the client asked for.
import type { JsonSchema, OutputFormat } from "../../engine.ts";
import { checkSchemaSize } from "../../json-schema-size.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import type { ChatFormat } from "../chat-format/chat-format.ts";
import { ANNOTATIONS } from "./grammar-schema.ts";

type Schema = Record<string, unknown>;

/** Keywords llama.cpp's converter reads and enforces (with the conditions checked below). */
const ENFORCED = new Set([
  "type",
  "properties",
  "additionalProperties",
  "required",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "const",
  "enum",
  "$ref",
  "$defs",
  "definitions",
  "anyOf",
  "oneOf",
  "allOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);

const TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);
/** common/json-schema.cpp get_format: any other format is read as none. */
const FORMATS = /^(date|time|date-time|uuid[1-5]?)$/;
const BOUNDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"];
const LISTED_PROBLEMS = 6;

class SchemaWalk {
  readonly problems: string[] = [];
  readonly patterns = new Map<string, string>();

  node(value: unknown, path: string): void {
    if (value === true || value === false) return;
    if (!isSchema(value)) {
      this.problems.push(`${path} is not a schema object`);
      return;
    }
    for (const key of Object.keys(value)) {
      if (ANNOTATIONS.has(key)) continue;
      if (!ENFORCED.has(key)) {
        if (key === "multipleOf" && value[key] === 1 && value.type === "integer") continue;
        this.problems.push(`${key} at ${path}/${key}`);
      }
    }
    this.checkLeading(value, path);
    this.checkString(value, path);
    this.checkBounds(value, path);
    for (const key of ["properties", "$defs", "definitions"]) {
      const record = value[key];
      if (record === undefined) continue;
      if (!isSchema(record)) this.problems.push(`${path}/${key} is not an object of schemas`);
      else
        for (const [name, child] of Object.entries(record))
          this.node(child, `${path}/${key}/${name}`);
    }
    for (const key of ["additionalProperties", "items"]) {
      const child = value[key];
      if (Array.isArray(child))
        child.forEach((item, index) => this.node(item, `${path}/${key}/${index}`));
      else if (child !== undefined) this.node(child, `${path}/${key}`);
    }
    for (const key of ["prefixItems", "anyOf", "oneOf", "allOf"]) {
      const list = value[key];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0) {
        this.problems.push(`${path}/${key} is not a list of schemas`);
        continue;
      }
      list.forEach((item, index) => this.node(item, `${path}/${key}/${index}`));
      if (key === "allOf") this.checkAllOf(list, `${path}/allOf`);
    }
    const types = Array.isArray(value.type)
      ? value.type
      : value.type === undefined
        ? []
        : [value.type];
    for (const type of types) {
      if (typeof type !== "string" || !TYPES.has(type)) {
        this.problems.push(`type ${JSON.stringify(type)} at ${path}/type`);
      }
    }
  }

  /** build_node reads $ref, then anyOf/oneOf, then const, then enum, and nothing beside them. */
  private checkLeading(schema: Schema, path: string): void {
    const leading = ["$ref", "anyOf", "oneOf", "const", "enum"].find((key) => key in schema);
    if (leading === undefined) return;
    const ignored = Object.keys(schema).filter(
      (key) =>
        key !== leading &&
        !ANNOTATIONS.has(key) &&
        key !== "$defs" &&
        key !== "definitions" &&
        !(key === "type" && (leading === "const" || leading === "enum")),
    );
    if (ignored.length > 0)
      this.problems.push(`${ignored.join(", ")} beside ${leading} at ${path}`);
  }

  /** A pattern decides the string alone: a format or length beside it is not read. */
  private checkString(schema: Schema, path: string): void {
    const { pattern, format } = schema;
    if (pattern !== undefined) {
      if (typeof pattern !== "string") this.problems.push(`pattern at ${path} is not a string`);
      else this.patterns.set(pattern, `${path}/pattern`);
    }
    if (format !== undefined && pattern === undefined) {
      if (typeof format !== "string" || !FORMATS.test(format)) {
        this.problems.push(
          `format ${JSON.stringify(format)} at ${path}/format (only date, time, date-time, uuid; ` +
            "or give a pattern)",
        );
      }
    }
    if (
      (pattern !== undefined || format !== undefined) &&
      ("minLength" in schema || "maxLength" in schema)
    ) {
      this.problems.push(
        `minLength/maxLength beside ${pattern !== undefined ? "pattern" : "format"} at ${path}`,
      );
    }
  }

  /** Bounds hold for integers only (build_min_max_int); a number's are not read. */
  private checkBounds(schema: Schema, path: string): void {
    for (const key of BOUNDS) {
      if (!(key in schema)) continue;
      if (schema.type !== "integer") this.problems.push(`${key} at ${path}/${key} (integers only)`);
      else if (typeof schema[key] !== "number")
        this.problems.push(`${key} at ${path} is not a number`);
    }
    if ("minimum" in schema && "exclusiveMinimum" in schema) {
      this.problems.push(`exclusiveMinimum beside minimum at ${path}`);
    }
    if ("maximum" in schema && "exclusiveMaximum" in schema) {
      this.problems.push(`exclusiveMaximum beside maximum at ${path}`);
    }
  }

  /** _visit_all_of merges the members' properties (and intersects enums): nothing else is kept. */
  private checkAllOf(members: unknown[], path: string): void {
    members.forEach((member, index) => {
      if (!isSchema(member)) return;
      const kept = Object.keys(member).filter(
        (key) =>
          !ANNOTATIONS.has(key) &&
          !["type", "properties", "required", "$ref", "enum", "anyOf"].includes(key),
      );
      if (kept.length > 0 || (member.type !== undefined && member.type !== "object")) {
        this.problems.push(
          `${[...kept, ...(member.type === undefined ? [] : ["type"])].join(", ")} inside allOf at ${path}/${index}`,
        );
      }
    });
  }
}

/**
 * llama.cpp writes an object's optional properties as chained rules whose build grows with the
 * cube of their number, on the calling thread (measured on the tiny GGUF's format: 50 optional
 * properties 21 ms, 100 141 ms, 1,000 19.6 s). Wider schemas keep node-llama-cpp's grammar, built
 * on a worker.
 */
const MAX_OPTIONAL_PER_OBJECT = 50;
const MAX_OPTIONAL_TOTAL = 200;

/** Whether llama.cpp's converter builds this schema's grammar in tens of milliseconds. */
function quickToConvert(schema: unknown): boolean {
  let total = 0;
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.every(visit);
    if (!isSchema(value)) return true;
    if (isSchema(value.properties)) {
      const required = new Set(Array.isArray(value.required) ? value.required : []);
      const optional = Object.keys(value.properties).filter((name) => !required.has(name)).length;
      total += optional;
      if (optional > MAX_OPTIONAL_PER_OBJECT || total > MAX_OPTIONAL_TOTAL) return false;
    }
    return Object.values(value).every(visit);
  };
  return visit(schema);
}

/**
 * The schema to hand the chat format's render (json_object: any object), or undefined where
 * llama.cpp's converter would hold the event loop too long (the caller keeps node-llama-cpp's
 * grammar, and its refusals, as on the chat-wrapper path). Throws invalid_request,
 * size limits first, then naming every keyword llama.cpp would not enforce and every pattern it
 * cannot turn into a grammar (it would accept any string there).
 */
export function chatFormatJsonSchema(
  format: ChatFormat,
  outputFormat: OutputFormat,
): JsonSchema | undefined {
  if (outputFormat.type !== "json_schema") return { type: "object" };
  const asked = `the JSON schema "${outputFormat.name}"`;
  const tooLarge = checkSchemaSize(outputFormat.schema, `Structured output: ${asked}`);
  if (tooLarge !== undefined) throw tooLarge;
  if (!quickToConvert(outputFormat.schema)) return undefined;
  const walk = new SchemaWalk();
  walk.node(outputFormat.schema, "#");
  for (const [pattern, path] of walk.patterns) {
    if (!patternSupported(format, pattern)) {
      walk.problems.push(
        `pattern ${JSON.stringify(pattern)} at ${path} (llama.cpp's grammar takes ^…$ patterns ` +
          "without lookaround, backreferences or inner anchors)",
      );
    }
  }
  if (walk.problems.length === 0) return outputFormat.schema;
  const listed = walk.problems.slice(0, LISTED_PROBLEMS).join("; ");
  const more =
    walk.problems.length > LISTED_PROBLEMS
      ? ` (and ${walk.problems.length - LISTED_PROBLEMS} more)`
      : "";
  throw new SparkError(
    "invalid_request",
    `Structured output: ${asked} uses what the embedded llama.cpp engine cannot enforce: ` +
      `${listed}${more}. Remove those keywords (and check that part of the answer yourself), or ` +
      "serve the model through an OpenAI-compatible upstream that supports them.",
  );
}

const patternVerdicts = new WeakMap<ChatFormat, Map<string, boolean>>();
const MAX_REMEMBERED_PATTERNS = 256;

/**
 * llama.cpp turns a pattern it cannot translate into "any string" with a warning on stderr only:
 * the pattern alone is converted, and a rule that is the plain string primitive means it was not
 * kept. A few milliseconds each, remembered per pattern.
 */
function patternSupported(format: ChatFormat, pattern: string): boolean {
  let verdicts = patternVerdicts.get(format);
  if (verdicts === undefined) {
    verdicts = new Map<string, boolean>();
    patternVerdicts.set(format, verdicts);
  }
  const known = verdicts.get(pattern);
  if (known !== undefined) return known;
  let supported: boolean;
  try {
    const { grammar } = format.render({
      messages: [{ role: "user", content: "probe" }],
      jsonSchema: { type: "string", pattern },
    });
    supported = grammar !== "" && !/^[\w-]+ ::= string$/m.test(grammar);
  } catch {
    supported = false;
  }
  if (verdicts.size >= MAX_REMEMBERED_PATTERNS) verdicts.clear();
  verdicts.set(pattern, supported);
  return supported;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
