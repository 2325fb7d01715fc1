// The JSON Schema a structured-output request gives, as node-llama-cpp's grammar builder must get
// it. That builder knows a subset and does not complain about the rest: `anyOf` or an unknown
// keyword becomes `null`, `pattern` or `minimum` is dropped, `type: ["object", "null"]` allows only
// null. So every keyword is checked here: what it cannot enforce is refused by name and place,
// and what it can enforce in another spelling (anyOf, a list of types, `definitions`) is rewritten.
import { SparkError } from "../../../protocol/spark-error.ts";

type Schema = Record<string, unknown>;

/** Every number the grammar writes is below this in magnitude (see output-format-grammar.ts). */
export const GRAMMAR_NUMBER_LIMIT = 1e15;

/** Keywords that do not restrict values: dropped, the output stays valid (both grammars' checks). */
export const ANNOTATIONS = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  // OpenAPI's widening of a type: without it the output is narrower, so still valid.
  "nullable",
]);

const TYPES = new Set(["string", "number", "integer", "boolean", "null", "object", "array"]);
const FORMATS = new Set(["date", "time", "date-time"]);
/** At most this many problems are listed; the message names the total. */
const LISTED_PROBLEMS = 6;

class SchemaWalk {
  readonly problems: string[] = [];

  constructor(private readonly definitions: ReadonlySet<string>) {}

  node(value: unknown, path: string): unknown {
    if (value === true) return {};
    if (!isSchema(value)) {
      this.problems.push(`${path} is not a schema object`);
      return {};
    }
    const schema: Schema = {};
    for (const [key, entry] of Object.entries(value)) {
      if (ANNOTATIONS.has(key)) continue;
      const converted = this.keyword(key, entry, value, `${path}/${key}`);
      if (converted !== undefined) schema[converted.key] = converted.value;
    }
    this.checkCombination(schema, path);
    inferType(schema);
    return splitTypeList(schema);
  }

  private keyword(
    key: string,
    entry: unknown,
    parent: Schema,
    path: string,
  ): { key: string; value: unknown } | undefined {
    switch (key) {
      case "type":
        return this.typeKeyword(entry, path);
      case "properties":
      case "$defs":
      case "definitions":
        return { key: key === "properties" ? key : "$defs", value: this.record(entry, path) };
      case "additionalProperties":
        return typeof entry === "boolean"
          ? { key, value: entry }
          : { key, value: this.node(entry, path) };
      case "items":
        if (Array.isArray(entry)) return { key: "prefixItems", value: this.list(entry, path) };
        return { key, value: this.node(entry, path) };
      case "prefixItems":
      case "oneOf":
      case "anyOf":
        // The grammar writes one branch of a oneOf: that value satisfies anyOf too.
        return { key: key === "prefixItems" ? key : "oneOf", value: this.list(entry, path) };
      case "required":
        // The grammar writes every property, which satisfies any `required`.
        this.checkRequired(entry, parent, path);
        return undefined;
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
      case "minProperties":
      case "maxProperties":
        if (!(Number.isInteger(entry) && (entry as number) >= 0)) {
          this.problems.push(`${key} at ${path} is not a non-negative integer`);
        }
        return { key, value: entry };
      case "const":
      case "enum":
        return { key, value: entry };
      case "format":
        if (typeof entry !== "string" || !FORMATS.has(entry)) {
          this.problems.push(
            `format ${JSON.stringify(entry)} at ${path} (only date, time, date-time)`,
          );
        }
        return { key, value: entry };
      case "$ref":
        return { key, value: this.reference(entry, path) };
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
      case "multipleOf":
        this.checkNumberBound(key, entry, parent, path);
        return undefined;
      default:
        this.problems.push(`${key} at ${path}`);
        return undefined;
    }
  }

  private typeKeyword(entry: unknown, path: string): { key: string; value: unknown } {
    const types = Array.isArray(entry) ? entry : [entry];
    for (const type of types) {
      if (typeof type !== "string" || !TYPES.has(type)) {
        this.problems.push(`type ${JSON.stringify(type)} at ${path}`);
      }
    }
    return { key: "type", value: entry };
  }

  private record(entry: unknown, path: string): Schema {
    if (!isSchema(entry)) {
      this.problems.push(`${path} is not an object of schemas`);
      return {};
    }
    return Object.fromEntries(
      Object.entries(entry).map(([name, value]) => [name, this.node(value, `${path}/${name}`)]),
    );
  }

  private list(entry: unknown, path: string): unknown[] {
    if (!Array.isArray(entry) || entry.length === 0) {
      this.problems.push(`${path} is not a list of schemas`);
      return [];
    }
    return entry.map((value, index) => this.node(value, `${path}/${index}`));
  }

  private reference(entry: unknown, path: string): unknown {
    const match =
      typeof entry === "string" ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(entry) : null;
    const name = match?.[1];
    if (name === undefined || !this.definitions.has(name)) {
      this.problems.push(
        `$ref ${JSON.stringify(entry)} at ${path} (only #/$defs/<name> of a definition here)`,
      );
      return entry;
    }
    return `#/$defs/${name}`;
  }

  private checkRequired(entry: unknown, parent: Schema, path: string): void {
    const properties = isSchema(parent.properties) ? parent.properties : {};
    const missing = Array.isArray(entry)
      ? entry.filter((name) => !(String(name) in properties))
      : [];
    if (missing.length > 0) {
      this.problems.push(
        `required at ${path} names ${missing.map((name) => JSON.stringify(name)).join(", ")}, not in properties`,
      );
    }
  }

  /** A bound holds when the grammar's own range lies inside it (zod's safe-integer bounds do). */
  private checkNumberBound(key: string, entry: unknown, parent: Schema, path: string): void {
    const holds =
      typeof entry === "number" &&
      (key === "multipleOf"
        ? entry === 1 && parent.type === "integer"
        : key === "minimum" || key === "exclusiveMinimum"
          ? entry <= -GRAMMAR_NUMBER_LIMIT
          : entry >= GRAMMAR_NUMBER_LIMIT);
    if (!holds) this.problems.push(`${key} ${JSON.stringify(entry)} at ${path}`);
  }

  /** The grammar builder reads $ref, oneOf, const and enum before anything beside them. */
  private checkCombination(schema: Schema, path: string): void {
    const leading = ["$ref", "oneOf", "const", "enum"].filter((key) => key in schema);
    const first = leading[0];
    if (first === undefined) return;
    const ignored = Object.keys(schema).filter(
      (key) =>
        key !== first &&
        key !== "$defs" &&
        !(key === "type" && first !== "$ref" && first !== "oneOf"),
    );
    if (ignored.length > 0) {
      this.problems.push(`${ignored.join(", ")} beside ${first} at ${path}`);
    }
    if (schema.format !== undefined && ("minLength" in schema || "maxLength" in schema)) {
      this.problems.push(`minLength/maxLength beside format at ${path}`);
    }
  }
}

/**
 * The schema rewritten for node-llama-cpp's grammar builder; throws invalid_request naming every
 * keyword (and where) whose constraint the grammar could not keep.
 */
export function grammarSchemaFor(schema: Schema, name: string): Schema {
  const walk = new SchemaWalk(definitionNames(schema));
  const converted = walk.node(schema, "#") as Schema;
  if (walk.problems.length === 0) return converted;
  const listed = walk.problems.slice(0, LISTED_PROBLEMS).join("; ");
  const more =
    walk.problems.length > LISTED_PROBLEMS
      ? ` (and ${walk.problems.length - LISTED_PROBLEMS} more)`
      : "";
  throw new SparkError(
    "invalid_request",
    `Structured output: the JSON schema "${name}" uses what the embedded llama.cpp engine cannot ` +
      `enforce: ${listed}${more}. Remove those keywords (and check that part of the answer ` +
      `yourself), or serve the model through an OpenAI-compatible upstream that supports them.`,
  );
}

function definitionNames(schema: Schema): Set<string> {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isSchema(value)) {
      for (const [key, entry] of Object.entries(value)) {
        if ((key === "$defs" || key === "definitions") && isSchema(entry)) {
          for (const name of Object.keys(entry)) names.add(name);
        }
        visit(entry);
      }
    }
  };
  visit(schema);
  return names;
}

/** No `type` but keywords of one: the builder would allow only null, which is valid but useless. */
function inferType(schema: Schema): void {
  if ("type" in schema || "$ref" in schema || "oneOf" in schema) return;
  if ("const" in schema || "enum" in schema) return;
  if ("properties" in schema || "additionalProperties" in schema) schema.type = "object";
  else if ("items" in schema || "prefixItems" in schema) schema.type = "array";
  else if ("minLength" in schema || "maxLength" in schema || "format" in schema)
    schema.type = "string";
}

/** `type: ["object", "null"]` as oneOf of one type each, which the builder reads in full. */
function splitTypeList(schema: Schema): Schema {
  const types = schema.type;
  if (!Array.isArray(types) || "const" in schema || "enum" in schema) return schema;
  if (types.length === 1) return { ...schema, type: types[0] };
  const { type: _type, $defs, ...rest } = schema;
  return {
    ...($defs === undefined ? {} : { $defs }),
    oneOf: types.map((type: unknown) => ({ ...rest, type })),
  };
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
