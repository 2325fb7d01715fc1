// `@path` mentions in the message box: what is being completed at the cursor, and the text once a
// workspace file is picked (the terminal UI's input completes the same way).

export interface MentionTarget {
  /** Where the `@` is. */
  start: number;
  /** What follows the `@` up to the cursor: the fuzzy query for `workspace/files`. */
  query: string;
}

export function mentionTarget(text: string, cursor: number): MentionTarget | undefined {
  const match = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, cursor));
  if (match === null) return undefined;
  const query = match[2] ?? "";
  return { start: cursor - query.length - 1, query };
}

/** The text with the mention replaced by `@path ` and the cursor after it. */
export function acceptMention(
  text: string,
  cursor: number,
  target: MentionTarget,
  path: string,
): { text: string; cursor: number } {
  const before = text.slice(0, target.start);
  const after = text.slice(cursor).replace(/^ /, "");
  const mention = `@${path} `;
  return { text: before + mention + after, cursor: before.length + mention.length };
}
