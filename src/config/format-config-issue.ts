// Turns a zod issue into "models.fast.engine: expected one of ...": the key path as written in the
// TOML file and what would have been accepted, so the fix is obvious without reading a schema.
import type { z } from "zod";

export interface FormattedConfigIssue {
  /** Dotted key path as TOML spells it, e.g. `models.fast.engine` or `serve.api_keys[0]`. */
  keyPath: string;
  path: PropertyKey[];
  message: string;
}

export function formatConfigIssue(issue: z.core.$ZodIssue): FormattedConfigIssue {
  if (issue.code === "unrecognized_keys") {
    const path = [...issue.path, issue.keys[0] ?? ""];
    const others = issue.keys.length > 1 ? ` (also ${issue.keys.slice(1).join(", ")})` : "";
    return { keyPath: formatKeyPath(path), path, message: `unknown key${others}` };
  }
  return {
    keyPath: formatKeyPath(issue.path),
    path: issue.path,
    message: describeIssue(issue),
  };
}

export function formatKeyPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else {
      const key = String(segment);
      const bare = /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
      text += text === "" ? bare : `.${bare}`;
    }
  }
  return text === "" ? "(top level)" : text;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const got = "input" in issue ? describeInput(issue.input) : "";
  switch (issue.code) {
    case "invalid_value":
      return `${expectedOneOf(issue.values)}${got}`;
    case "invalid_type":
      if ("input" in issue && issue.input === undefined)
        return `required (expected ${issue.expected})`;
      if (issue.message.startsWith("Invalid input")) return `expected ${issue.expected}${got}`;
      return `${issue.message}${got}`;
    case "invalid_union":
      if ("options" in issue && Array.isArray(issue.options)) {
        // A discriminated union reports the whole table as input; the tag is what was wrong.
        const tag = discriminatorValue(issue);
        const required = tag === undefined ? "required: " : "";
        return `${required}${expectedOneOf(issue.options)}${describeInput(tag)}`;
      }
      return `${issue.message}${got}`;
    case "too_small":
    case "too_big": {
      if (!issue.message.startsWith("Too")) return `${issue.message}${got}`;
      const sign = issue.code === "too_small" ? ">" : "<";
      const bound = issue.code === "too_small" ? issue.minimum : issue.maximum;
      const unit =
        issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      return `expected ${issue.origin} ${sign}${issue.inclusive ? "=" : ""} ${String(bound)}${unit}${got}`;
    }
    case "custom":
      // Refinements word their own message and see the whole table, not the offending value.
      return issue.message;
    default:
      return `${issue.message}${got}`;
  }
}

function discriminatorValue(issue: z.core.$ZodIssue): unknown {
  if (!("input" in issue) || !("discriminator" in issue)) return undefined;
  const { input, discriminator } = issue;
  if (typeof input !== "object" || input === null || typeof discriminator !== "string")
    return undefined;
  return (input as Record<string, unknown>)[discriminator];
}

function expectedOneOf(values: readonly unknown[]): string {
  const listed = values.map((value) => JSON.stringify(value)).join(" | ");
  return values.length === 1 ? `expected ${listed}` : `expected one of ${listed}`;
}

function describeInput(input: unknown): string {
  if (input === undefined) return "";
  if (typeof input === "object" && input !== null)
    return Array.isArray(input) ? ", got an array" : ", got a table";
  const text = JSON.stringify(input);
  return `, got ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}
