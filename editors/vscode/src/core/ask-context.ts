// The editor context an Ask Spark question carries: the active file and, when there is one, the
// selected code, appended to the question so the agent sees what the user is looking at (it can
// read the rest of the file with its tools).

export interface EditorContext {
  /** The file's path relative to the workspace (or absolute outside it). */
  path: string;
  languageId: string;
  /** 1-based, inclusive; absent without a selection. */
  selection?: { startLine: number; endLine: number; text: string };
}

/** What the panel shows above the prompt: "sample.js, lines 3–5 selected". */
export function describeContext(context: EditorContext | undefined): string {
  if (context === undefined) return "";
  const selection = context.selection;
  if (selection === undefined) return context.path;
  return selection.startLine === selection.endLine
    ? `${context.path}, line ${selection.startLine} selected`
    : `${context.path}, lines ${selection.startLine}–${selection.endLine} selected`;
}

/** The text sent as the turn: the question, then the context it was asked in. */
export function questionWithContext(question: string, context: EditorContext | undefined): string {
  if (context === undefined) return question;
  const selection = context.selection;
  if (selection === undefined) return `${question}\n\n(Active file: ${context.path})`;
  const fence = fenceFor(selection.text);
  const lines =
    selection.startLine === selection.endLine
      ? `line ${selection.startLine}`
      : `lines ${selection.startLine}-${selection.endLine}`;
  return `${question}\n\n(Active file: ${context.path}, ${lines} selected:)\n${fence}${context.languageId}\n${selection.text}\n${fence}`;
}

/** A fence longer than any run of backticks in the code, so the code cannot close it early. */
function fenceFor(code: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(longest + 1);
}
