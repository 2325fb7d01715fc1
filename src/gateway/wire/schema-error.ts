// Turns a zod validation failure into one sentence that names the field and what it must be,
// digging into unions for the branch that got furthest, so the message is actionable.
import type { z } from "zod";
import { schemaSizeMessage, schemaSizeViolation } from "../../engines/json-schema-size.ts";
import { WireError } from "./wire-error.ts";

type Issue = z.core.$ZodIssue;

export function schemaError(error: z.ZodError, subject: string): WireError {
  const issue = mostSpecificIssue(error.issues, []);
  if (issue === undefined) return new WireError("invalid_request", `${subject} is invalid.`);
  const path = formatPath(issue.path);
  const where = path === "" ? subject : `${subject}: '${path}'`;
  return new WireError("invalid_request", `${where} ${issue.message}.`, {
    ...(path === "" ? {} : { param: path }),
  });
}

/**
 * Throws a 400 naming the size limit a client's JSON schema (an output format's, a tool's
 * parameters) exceeds, with `param` the field that holds it; before anything builds a grammar.
 */
export function checkSchemaSizeAt(schema: unknown, param: string): void {
  const violation = schemaSizeViolation(schema);
  if (violation === undefined) return;
  throw new WireError("invalid_request", schemaSizeMessage(param, violation), {
    param,
    wireCode: "schema_too_large",
  });
}

interface LocatedIssue {
  path: PropertyKey[];
  message: string;
  /** Deeper is more specific; at equal depth a plain type error beats a custom refinement. */
  score: number;
}

function mostSpecificIssue(
  issues: readonly Issue[],
  prefix: PropertyKey[],
): LocatedIssue | undefined {
  let best: LocatedIssue | undefined;
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    let candidate: LocatedIssue = {
      path,
      message: describe(issue),
      score: path.length * 2 + (issue.code === "custom" ? 0 : 1),
    };
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      for (const branch of intendedBranches(issue.errors)) {
        const inner = mostSpecificIssue(branch, path);
        if (
          inner !== undefined &&
          inner.path.length > path.length &&
          inner.score > candidate.score
        ) {
          candidate = inner;
        }
      }
    }
    if (best === undefined || candidate.score > best.score) best = candidate;
  }
  return best;
}

/** The union branches the client meant: those whose `type` tag matched, when any did. */
function intendedBranches(branches: Issue[][]): Issue[][] {
  const tagMismatch = (issue: Issue) =>
    issue.path.length === 1 &&
    issue.path[0] === "type" &&
    (issue.code === "invalid_value" || issue.code === "custom");
  const matching = branches.filter((branch) => !branch.some(tagMismatch));
  return matching.length > 0 ? matching : branches;
}

function describe(issue: Issue): string {
  if (issue.code === "invalid_union") {
    // Every branch failed on this value itself: say which kinds of value would do.
    const expected = new Set<string>();
    let received: string | undefined;
    for (const branch of issue.errors) {
      for (const inner of branch) {
        if (inner.path.length === 0 && inner.code === "invalid_type") {
          expected.add(inner.expected);
          received = /received (\w+)/.exec(inner.message)?.[1] ?? received;
        }
      }
    }
    if (expected.size > 0 && received === "undefined")
      return `is required (${[...expected].join(" or ")})`;
    if (expected.size > 0) {
      return `must be ${[...expected].join(" or ")}${received === undefined ? "" : `, not ${received}`}`;
    }
    return "does not match any accepted shape";
  }
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) {
    return `is required (${issue.expected})`;
  }
  // A refinement that words its own failure (e.g. metadata's limits) says it in params.description.
  if (issue.code === "custom") {
    const description: unknown = issue.params?.["description"];
    return typeof description === "string" ? description : "has a value that is not accepted here";
  }
  return `is invalid: ${issue.message.replace(/^Invalid input: /, "")}`;
}

function formatPath(path: PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
