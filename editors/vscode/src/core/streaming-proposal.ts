// What a quick edit proposes while its rewrite streams and when it stops early: the lines written
// so far followed by the original lines the rewrite has not reached yet, so the proposal never
// drops the rest of the selection (as Continue and Cursor do). Lines are matched one by one.

/** The proposal to show while streaming: the rewrite so far, then the original's untouched tail. */
export function proposalWhileStreaming(original: string, streamed: string): string {
  const lines = streamed.split("\n");
  const partialLine = lines.pop() ?? "";
  const tail = untouchedTail(original, lines);
  // A partial line that the next original line starts with is that line being copied: showing
  // both would flicker a duplicate line in and out.
  const showPartial = partialLine !== "" && !(tail[0] ?? "").startsWith(partialLine);
  return [...lines, ...(showPartial ? [partialLine] : []), ...tail].join("\n");
}

/**
 * The proposal after Esc: whole lines rewritten so far, then the original's untouched tail. A
 * half-written last line is dropped: it is a fragment (`if (typeof`), not code.
 */
export function proposalAfterStop(original: string, streamed: string): string {
  const lines = streamed.split("\n");
  lines.pop();
  if (lines.length === 0) return original;
  return [...lines, ...untouchedTail(original, lines)].join("\n");
}

/**
 * The proposal once the rewrite finished. A selection that ended with a newline keeps it even
 * when the model's reply does not end with one, so the next line is not joined onto the last.
 */
export function finishedProposal(original: string, streamed: string): string {
  if (original.endsWith("\n") && streamed !== "" && !streamed.endsWith("\n"))
    return `${streamed}\n`;
  return streamed;
}

/** The original lines after the last one the streamed whole lines correspond to. */
function untouchedTail(original: string, streamedLines: readonly string[]): string[] {
  const originalLines = original.split("\n");
  let cursor = 0;
  for (const line of streamedLines) {
    const match = findLine(originalLines, cursor, line);
    if (match !== -1) cursor = match + 1;
    // A changed line (`return x + y;` → `return (x + y) | 0;`) replaces the one it resembles;
    // an unlike line is an insertion and leaves the original line in the tail.
    else if (cursor < originalLines.length && resembles(line, originalLines[cursor] ?? ""))
      cursor += 1;
  }
  return originalLines.slice(cursor);
}

function findLine(lines: readonly string[], from: number, line: string): number {
  if (lines[from] === line) return from;
  // Lines without words (`}`, blank) repeat everywhere: jumping ahead to one would drop the
  // whole tail after the first `}` of an inserted block. Only lines with words may skip ahead.
  if (!/\w/.test(line)) return -1;
  for (let index = from + 1; index < lines.length; index++) if (lines[index] === line) return index;
  return -1;
}

/**
 * Same indentation, and either the same first token with half their characters in common (in
 * order) or four fifths in common: `return x + y;` → `return (x + y) | 0;` is a rewrite, a guard
 * `if (!x) return 0;` inserted before it is not.
 */
export function resembles(first: string, second: string): boolean {
  if (indentationOf(first) !== indentationOf(second)) return false;
  const a = first.trim();
  const b = second.trim();
  if (a === "" || b === "") return false;
  const similarity = (2 * commonSubsequenceLength(a, b)) / (a.length + b.length);
  return similarity >= 0.8 || (similarity >= 0.5 && firstToken(a) === firstToken(b));
}

function firstToken(line: string): string {
  return /^(\w+|\S)/.exec(line)?.[0] ?? "";
}

function indentationOf(line: string): number {
  return line.length - line.trimStart().length;
}

function commonSubsequenceLength(first: string, second: string): number {
  // Lines are short; an O(n·m) table over two rows is plenty.
  let previous = new Array<number>(second.length + 1).fill(0);
  for (const character of first) {
    const current = [0];
    for (let index = 1; index <= second.length; index++)
      current[index] =
        second[index - 1] === character
          ? (previous[index - 1] ?? 0) + 1
          : Math.max(previous[index] ?? 0, current[index - 1] ?? 0);
    previous = current;
  }
  return previous[second.length] ?? 0;
}
