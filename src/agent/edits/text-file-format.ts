// Decodes a file's bytes into LF text for editing and encodes the edited text back with the file's
// own conventions: CRLF or LF, a UTF-8 byte order mark, and the presence of a final newline.

export interface TextFileFormat {
  lineEnding: "\n" | "\r\n";
  byteOrderMark: boolean;
  /** An empty file counts as ending with a newline, so lines added to it end with one. */
  finalNewline: boolean;
}

export const NEW_FILE_FORMAT: TextFileFormat = {
  lineEnding: "\n",
  byteOrderMark: false,
  finalNewline: true,
};

export interface DecodedTextFile {
  /** The content with CRLF turned into LF (for CRLF files) and without a byte order mark. */
  text: string;
  format: TextFileFormat;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Returns undefined for content that is not UTF-8 text (invalid UTF-8 or a NUL byte). */
export function decodeTextFile(bytes: Uint8Array): DecodedTextFile | undefined {
  if (bytes.includes(0)) return undefined;
  const byteOrderMark = UTF8_BOM.every((byte, index) => bytes[index] === byte);
  let decoded: string;
  try {
    decoded = strictDecoder.decode(byteOrderMark ? bytes.subarray(3) : bytes);
  } catch {
    return undefined;
  }
  const lineEnding = detectLineEnding(decoded);
  const text = lineEnding === "\r\n" ? decoded.replaceAll("\r\n", "\n") : decoded;
  const finalNewline = text.length === 0 || text.endsWith("\n");
  return { text, format: { lineEnding, byteOrderMark, finalNewline } };
}

/**
 * A file is CRLF only when every newline is part of "\r\n"; a file with mixed endings is edited
 * as LF text (its "\r" stays part of the lines), so its untouched lines come back byte for byte.
 */
export function detectLineEnding(text: string): "\n" | "\r\n" {
  let newlines = 0;
  let crlf = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
    newlines += 1;
    if (index > 0 && text.charCodeAt(index - 1) === 13) crlf += 1;
  }
  return newlines > 0 && crlf === newlines ? "\r\n" : "\n";
}

/** Applies the final-newline rule to edited LF text without encoding it. */
export function applyFinalNewline(text: string, format: TextFileFormat): string {
  if (text.length === 0) return text;
  if (format.finalNewline && !text.endsWith("\n")) return `${text}\n`;
  if (!format.finalNewline && text.endsWith("\n")) return text.slice(0, -1);
  return text;
}

/** Encodes edited LF text back into the file's format. */
export function encodeTextFile(text: string, format: TextFileFormat): Buffer {
  const withNewline = applyFinalNewline(text, format);
  const withEndings =
    format.lineEnding === "\r\n" ? withNewline.replaceAll("\n", "\r\n") : withNewline;
  const body = Buffer.from(withEndings, "utf8");
  return format.byteOrderMark ? Buffer.concat([Buffer.from(UTF8_BOM), body]) : body;
}

/** Model-written text may carry CRLF; edits work in LF. */
export function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

/** LF text to lines, without the empty string a final newline would add. */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}
