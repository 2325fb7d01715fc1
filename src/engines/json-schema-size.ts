// How big a JSON schema may be before anything turns it into a grammar: OpenAI's documented
// structured-output limits (properties, enum values, their characters), plus the two that bound
// a llama.cpp grammar (subschemas, repetition counts). One linear walk, no recursion.
import { SparkError } from "../protocol/spark-error.ts";

/** The limits, named where a refusal quotes them. */
export const SCHEMA_SIZE_LIMITS = {
  /** OpenAI: "up to 5000 object properties total". */
  properties: 5_000,
  /** OpenAI: "up to 1000 enum values across all enum properties". */
  enumValues: 1_000,
  /** OpenAI: one string enum of more than 250 values totals at most 15,000 characters. */
  largeEnumCharacters: 15_000,
  largeEnumValues: 250,
  /** OpenAI: property names, definition names, enum and const values total 120,000 characters. */
  stringCharacters: 120_000,
  /** Subschemas (objects) anywhere in the schema: each becomes grammar rules. */
  nodes: 20_000,
  /**
   * minLength, maxLength, minItems, maxItems, minProperties, maxProperties: llama.cpp expands a
   * repetition into one rule per count and refuses counts near 2,000 ("Failed to parse grammar").
   */
  repetition: 1_000,
} as const;

const REPETITION_KEYWORDS = new Set([
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
]);

/** Keywords whose values are data, not subschemas: their insides are not walked as schemas. */
const VALUE_KEYWORDS = new Set(["enum", "const", "default", "examples", "required"]);

/** Keywords whose value maps names to subschemas. */
const NAMED_SCHEMA_KEYWORDS = new Set(["properties", "$defs", "definitions", "patternProperties"]);

interface PendingValue {
  value: unknown;
  path: string;
  /** A map of names to schemas rather than a schema. */
  namedSchemas: boolean;
}

export interface SchemaSizeViolation {
  /** Which limit, in words a client can search the docs for (e.g. "enum values"). */
  limit: string;
  /** What the schema has and what is allowed, one clause. */
  detail: string;
}

/** The first limit `schema` exceeds, or undefined when it fits every one. */
export function schemaSizeViolation(schema: unknown): SchemaSizeViolation | undefined {
  const limits = SCHEMA_SIZE_LIMITS;
  let nodes = 0;
  let properties = 0;
  let enumValues = 0;
  let characters = 0;
  // A map of named schemas (properties, $defs) holds schemas under any name, "enum" included.
  const pending: PendingValue[] = [{ value: schema, path: "#", namedSchemas: false }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (Array.isArray(value)) {
      value.forEach((entry, index) =>
        pending.push({ value: entry, path: `${path}/${index}`, namedSchemas: false }),
      );
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    nodes += 1;
    if (nodes > limits.nodes) {
      return {
        limit: "subschemas",
        detail: `has more than ${limits.nodes} subschemas (the limit)`,
      };
    }
    for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
      const at = `${path}/${key}`;
      if (next.namedSchemas) {
        pending.push({ value: entry, path: at, namedSchemas: false });
        continue;
      }
      if (REPETITION_KEYWORDS.has(key) && typeof entry === "number" && entry > limits.repetition) {
        return {
          limit: key,
          detail: `has ${key} ${entry} at ${at}, over the limit of ${limits.repetition} for minLength, maxLength, minItems, maxItems, minProperties and maxProperties`,
        };
      }
      if (key === "enum" && Array.isArray(entry)) {
        enumValues += entry.length;
        if (enumValues > limits.enumValues) return tooManyEnumValues(enumValues);
        const enumCharacters = stringCharacters(entry);
        characters += enumCharacters;
        if (entry.length > limits.largeEnumValues && enumCharacters > limits.largeEnumCharacters) {
          return {
            limit: "enum characters",
            detail: `has an enum of ${entry.length} values totalling ${enumCharacters} characters at ${at}, over the limit of ${limits.largeEnumCharacters} characters for an enum of more than ${limits.largeEnumValues} values`,
          };
        }
      } else if (key === "const" && typeof entry === "string") {
        characters += entry.length;
      } else if (NAMED_SCHEMA_KEYWORDS.has(key) && isRecord(entry)) {
        const names = Object.keys(entry);
        if (key === "properties") properties += names.length;
        characters += stringCharacters(names);
        pending.push({ value: entry, path: at, namedSchemas: true });
        continue;
      }
      if (!VALUE_KEYWORDS.has(key)) pending.push({ value: entry, path: at, namedSchemas: false });
    }
    if (properties > limits.properties) {
      return {
        limit: "properties",
        detail: `has ${properties} object properties or more, over the limit of ${limits.properties} across the schema`,
      };
    }
    if (characters > limits.stringCharacters) {
      return {
        limit: "schema characters",
        detail: `has ${characters} characters or more of property names, definition names, enum and const values, over the limit of ${limits.stringCharacters}`,
      };
    }
  }
  return undefined;
}

/** The sentence a refusal gives: `<subject>: the JSON schema <detail>; <what to do>.` */
export function schemaSizeMessage(subject: string, violation: SchemaSizeViolation): string {
  return (
    `${subject}: the JSON schema ${violation.detail}. Split the schema or shorten its lists ` +
    `(these are OpenAI's structured-output limits, plus the ones a llama.cpp grammar needs).`
  );
}

/** An invalid_request naming the limit, for callers without a request field to point at. */
export function checkSchemaSize(schema: unknown, subject: string): SparkError | undefined {
  const violation = schemaSizeViolation(schema);
  if (violation === undefined) return undefined;
  return new SparkError("invalid_request", schemaSizeMessage(subject, violation));
}

function tooManyEnumValues(counted: number): SchemaSizeViolation {
  return {
    limit: "enum values",
    detail: `has ${counted} enum values or more, over the limit of ${SCHEMA_SIZE_LIMITS.enumValues} across the schema`,
  };
}

function stringCharacters(values: readonly unknown[]): number {
  let total = 0;
  for (const value of values) if (typeof value === "string") total += value.length;
  return total;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
