// What a message carries besides its text: workspace files named for the agent to read, and
// uploaded text files pasted into the message. Uploads are checked here (size cap, text only)
// and never written anywhere: they travel inside the message text.

/** Per uploaded file; past it the upload is refused with a message saying so. */
export const MAX_UPLOAD_BYTES = 256 * 1024;
/** All uploads of one message together. */
export const MAX_TOTAL_UPLOAD_BYTES = 768 * 1024;

export interface Upload {
  name: string;
  text: string;
  bytes: number;
}

/** A file as the page hands it over (a DOM `File` fits): its size is known before it is read. */
export interface UploadSource {
  name: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}

export type UploadCheck = { ok: true; upload: Upload } | { ok: false; reason: string };

/** Why a file of `bytes` cannot join a message already carrying `existingBytes`, or undefined. */
export function uploadSizeRefusal(
  name: string,
  bytes: number,
  existingBytes = 0,
): string | undefined {
  const label = displayName(name);
  if (bytes > MAX_UPLOAD_BYTES) {
    return `${label} is ${formatBytes(bytes)}; uploads are capped at ${formatBytes(MAX_UPLOAD_BYTES)} per file. Attach a smaller excerpt, or put the file in the workspace and attach it from the file tree.`;
  }
  if (existingBytes + bytes > MAX_TOTAL_UPLOAD_BYTES) {
    return `${label} would bring this message's uploads to ${formatBytes(existingBytes + bytes)}, over the ${formatBytes(MAX_TOTAL_UPLOAD_BYTES)} cap. Send it in a separate message.`;
  }
  return undefined;
}

/** Accepts UTF-8 text within the caps; `existingBytes` is what the message already carries. */
export function checkUpload(name: string, data: Uint8Array, existingBytes = 0): UploadCheck {
  const label = displayName(name);
  const refusal = uploadSizeRefusal(name, data.byteLength, existingBytes);
  if (refusal !== undefined) return { ok: false, reason: refusal };
  if (data.subarray(0, 8192).includes(0)) {
    return { ok: false, reason: `${label} looks binary; only text files can be uploaded.` };
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return { ok: false, reason: `${label} is not UTF-8 text; only text files can be uploaded.` };
  }
  return { ok: true, upload: { name: label, text, bytes: data.byteLength } };
}

/** A message as the user put it together: what they typed, the files named, the uploads. */
export interface MessageParts {
  text: string;
  files: readonly string[];
  uploads: readonly { name: string; text: string }[];
}

const FILES_HEADING = "Files from the workspace to look at:";
const FILE_LIST = /(?:^|\n\n)Files from the workspace to look at:\n((?:- @[^\n]+\n)*- @[^\n]+)$/;
const UPLOAD_HEADING = /(?:^|\n\n)Uploaded file `([^`\n]*)` \(not in the workspace\):$/;

/** The text sent as the message: what was typed, then the named files, then each upload fenced. */
export function composeMessage(
  text: string,
  workspaceFiles: readonly string[],
  uploads: readonly Upload[],
): string {
  const parts: string[] = [];
  if (text.trim() !== "") parts.push(text.trim());
  if (workspaceFiles.length > 0) {
    parts.push(`${FILES_HEADING}\n${workspaceFiles.map((file) => `- @${file}`).join("\n")}`);
  }
  for (const upload of uploads) {
    const fence = "`".repeat(Math.max(3, longestBacktickRun(upload.text) + 1));
    const body = upload.text.endsWith("\n") ? upload.text : `${upload.text}\n`;
    parts.push(
      `Uploaded file \`${upload.name}\` (not in the workspace):\n${fence}${languageOf(upload.name)}\n${body}${fence}`,
    );
  }
  return parts.join("\n\n");
}

/**
 * Messages this page sent, with the parts they were put together from, so their chips need no
 * parsing (the newest few; older ones are parsed like everyone else's).
 */
export class SentMessages {
  private readonly parts = new Map<string, MessageParts>();

  constructor(private readonly capacity = 50) {}

  remember(message: string, parts: MessageParts): void {
    this.parts.delete(message);
    this.parts.set(message, parts);
    const oldest = this.parts.keys().next().value;
    if (this.parts.size > this.capacity && oldest !== undefined) this.parts.delete(oldest);
  }

  read(message: string): MessageParts {
    return this.parts.get(message) ?? parseComposedMessage(message);
  }
}

/**
 * composeMessage read backwards, for messages this tab did not send (a reload, another tab, the
 * terminal): uploads from the end (each fence is longer than any backtick run inside it), then
 * the file list. Text that only looks like the wrapper somewhere else stays text.
 */
export function parseComposedMessage(message: string): MessageParts {
  let rest = message;
  const uploads: { name: string; text: string }[] = [];
  for (;;) {
    const upload = takeLastUpload(rest);
    if (upload === undefined) break;
    uploads.unshift(upload.upload);
    rest = upload.rest;
  }
  let files: string[] = [];
  const fileList = FILE_LIST.exec(rest);
  if (fileList !== null) {
    files = (fileList[1] ?? "").split("\n").map((line) => line.slice(3));
    rest = rest.slice(0, fileList.index);
  }
  return { text: rest, files, uploads };
}

function takeLastUpload(
  message: string,
): { upload: { name: string; text: string }; rest: string } | undefined {
  const closing = /\n(`{3,})$/.exec(message);
  const fence = closing?.[1];
  if (closing === null || fence === undefined) return undefined;
  // The opening fence is the only other run of this length: the body's runs are all shorter.
  const opening = message.lastIndexOf(`\n${fence}`, closing.index - 1);
  if (opening < 0 || message[opening + 1 + fence.length] === "`") return undefined;
  const heading = UPLOAD_HEADING.exec(message.slice(0, opening));
  const bodyStart = message.indexOf("\n", opening + 1) + 1;
  if (heading === null || bodyStart <= 0 || bodyStart > closing.index + 1) return undefined;
  const body = message.slice(bodyStart, closing.index + 1);
  return {
    upload: { name: heading[1] ?? "", text: body },
    rest: message.slice(0, heading.index),
  };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}

function displayName(name: string): string {
  // A dropped file's name is data: keep it printable and short.
  const cleaned = Array.from(name, (character) => {
    const code = character.charCodeAt(0);
    return code < 0x20 || code === 0x7f || character === "`" ? "_" : character;
  })
    .join("")
    .slice(0, 200);
  return cleaned === "" ? "unnamed" : cleaned;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

function languageOf(name: string): string {
  const extension = /\.([A-Za-z0-9]+)$/.exec(name)?.[1];
  return extension === undefined ? "" : extension.toLowerCase();
}
