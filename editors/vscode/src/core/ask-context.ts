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

/** What the panel lists of the selections "Add Selection to Ask" attached: "a.ts lines 3–5". */
export function describeAttached(attached: readonly EditorContext[]): string {
  return attached
    .map((context) => describeContext(context).replace(/, (lines?) (\S+) selected$/, " $1 $2"))
    .join(", ");
}

/**
 * The text sent as the turn: the question, then the context it was asked in, then each selection
 * the user attached (one the same as the active selection is sent once).
 */
export function questionWithContext(
  question: string,
  context: EditorContext | undefined,
  attached: readonly EditorContext[] = [],
): string {
  const parts = [question];
  if (context !== undefined)
    parts.push(
      context.selection === undefined
        ? `(Active file: ${context.path})`
        : `(Active file: ${context.path}, ${linesOf(context.selection)} selected:)\n${fenced(context)}`,
    );
  for (const item of attached) {
    if (item.selection === undefined || sameSelection(item, context)) continue;
    parts.push(`(Attached: ${item.path}, ${linesOf(item.selection)}:)\n${fenced(item)}`);
  }
  return parts.join("\n\n");
}

function linesOf(selection: NonNullable<EditorContext["selection"]>): string {
  return selection.startLine === selection.endLine
    ? `line ${selection.startLine}`
    : `lines ${selection.startLine}-${selection.endLine}`;
}

function fenced(context: EditorContext): string {
  const text = context.selection?.text ?? "";
  const fence = fenceFor(text);
  return `${fence}${context.languageId}\n${text}\n${fence}`;
}

function sameSelection(first: EditorContext, second: EditorContext | undefined): boolean {
  return (
    second?.selection !== undefined &&
    first.path === second.path &&
    first.selection?.startLine === second.selection.startLine &&
    first.selection?.endLine === second.selection.endLine &&
    first.selection?.text === second.selection.text
  );
}

/** A fence longer than any run of backticks in the code, so the code cannot close it early. */
function fenceFor(code: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(longest + 1);
}
