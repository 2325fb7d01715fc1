// What the input is completing, if anything (a `/command` or an `@path` mention), and the input
// after a suggestion is accepted.
import type { LineState } from "./line-editor.ts";

export type CompletionTarget =
  | { kind: "command"; prefix: string }
  /** `start`: where the `@` is; `query`: what follows it up to the cursor. */
  | { kind: "file"; start: number; query: string };

export function completionTarget(line: LineState): CompletionTarget | undefined {
  if (/^\/\S*$/.test(line.value) && line.cursor === line.value.length)
    return { kind: "command", prefix: line.value };
  const match = /(^|\s)@([^\s@]*)$/.exec(line.value.slice(0, line.cursor));
  if (match === null) return undefined;
  const query = match[2] ?? "";
  return { kind: "file", start: line.cursor - query.length - 1, query };
}

/** The line with the target replaced by the suggestion's value. */
export function acceptSuggestion(
  line: LineState,
  target: CompletionTarget,
  value: string,
): LineState {
  if (target.kind === "command") return { value, cursor: value.length };
  const before = line.value.slice(0, target.start);
  const after = line.value.slice(line.cursor);
  const mention = `@${value} `;
  return {
    value: before + mention + after.replace(/^ /, ""),
    cursor: before.length + mention.length,
  };
}
