// `@file` in Ask: the mention being typed at the cursor, the box's text once a file is chosen for
// it, and the question with its chosen files listed as the browser app and the TUI list them
// ("Files from the workspace to look at:" then `- @path` lines), which the agent reads itself.

export interface Mention {
  /** Where the `@` is. */
  start: number;
  /** What follows it up to the cursor. */
  query: string;
}

const FILES_HEADING = "Files from the workspace to look at:";

/** The `@word` that ends at `caret`, when its `@` starts the text or follows a space. */
export function mentionAt(text: string, caret: number): Mention | undefined {
  const match = /(?:^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (match === null) return undefined;
  const query = match[1] ?? "";
  return { start: caret - query.length - 1, query };
}

/** The text with the mention taken out (the file becomes a chip), and where the cursor goes. */
export function withoutMention(
  text: string,
  mention: Mention,
  caret: number,
): { text: string; caret: number } {
  return { text: text.slice(0, mention.start) + text.slice(caret), caret: mention.start };
}

/** The question as sent: its files listed after it, each once. */
export function questionWithFiles(question: string, files: readonly string[]): string {
  const unique = [...new Set(files)];
  if (unique.length === 0) return question;
  return `${question}\n\n${FILES_HEADING}\n${unique.map((file) => `- @${file}`).join("\n")}`;
}
