// What Ask's Insert writes for a code block: a block inserted at a line's start ends with a newline,
// so the line that was under the cursor stays its own line instead of being joined to the block's
// last line.

export function insertText(code: string, atLineStart: boolean): string {
  if (!atLineStart || code === "" || code.endsWith("\n")) return code;
  return `${code}\n`;
}
