// Turns a zod validation failure into one sentence that names the field and what it must be,
// digging into unions for the branch that got furthest, so the message is actionable.
import type { z } from "zod";
import { WireError } from "./wire-error.ts";

type Issue = z.core.$ZodIssue;

export function schemaError(error: z.ZodError, subject: string): WireError {
  const issue = mostSpecificIssue(error.issues, []);
  if (issue === undefined) return new WireError("invalid_request", `${subject} is invalid.`);
  const path = formatPath(issue.path);
  const where = path === "" ? subject : `${subject}: '${path}'`;
  return new WireError(
    "invalid_request",
    `${where}: ${issue.message.replace(/^Invalid input: /, "")}.`,
    {
      ...(path === "" ? {} : { param: path }),
    },
  );
}

interface LocatedIssue {
  path: PropertyKey[];
  message: string;
}

function mostSpecificIssue(
  issues: readonly Issue[],
  prefix: PropertyKey[],
): LocatedIssue | undefined {
  let best: LocatedIssue | undefined;
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    let candidate: LocatedIssue = { path, message: issue.message };
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      for (const branch of issue.errors) {
        const inner = mostSpecificIssue(branch, path);
        if (inner !== undefined && inner.path.length > candidate.path.length) candidate = inner;
      }
    }
    if (best === undefined || candidate.path.length > best.path.length) best = candidate;
  }
  return best;
}

function formatPath(path: PropertyKey[]): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}
