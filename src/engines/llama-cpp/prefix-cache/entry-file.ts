// One cached prefix on disk: a header (JSON: kind, token count, state size and CRC-32), the tokens,
// then llama.cpp's sequence state. Written to a temporary file and renamed, so a reader sees a
// whole file or none; read back checked against its header, so a truncated file is refused.
import { randomUUID } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { crc32 } from "node:zlib";
import type { Token } from "node-llama-cpp";
import { SparkError } from "../../../protocol/spark-error.ts";
import type { MapFile } from "../native-loop/generation-loop-addon.ts";

const MAGIC = Buffer.from("SPARKKV1", "latin1");
/** The CRC runs a slice at a time between event-loop turns: a 7B's state must not stall streams. */
const CRC_SLICE_BYTES = 4 * 1024 * 1024;
const PREFIX_BYTES = MAGIC.length + 4;
/** The first read of an entry: its header and up to ~32k tokens. */
const HEAD_READ_BYTES = 128 * 1024;
/** Headers are a few dozen bytes; anything larger is not one of ours. */
const MAX_HEADER_BYTES = 4096;

/**
 * "prefix": the end of the system prompt and tools; "turn": the end of a finished turn;
 * "completion": a FIM request that computed a long prompt (a file opened in the editor).
 */
export type EntryKind = "prefix" | "turn" | "completion";
const ENTRY_KINDS: readonly unknown[] = ["prefix", "turn", "completion"] satisfies EntryKind[];

export interface EntryHeader {
  kind: EntryKind;
  tokens: Token[];
  stateBytes: number;
  stateCrc32: number;
  /** Where the state starts in the file. */
  stateOffset: number;
}

function invalid(path: string, reason: string): SparkError {
  return new SparkError("checksum_mismatch", `${path}: ${reason}`);
}

/**
 * Writes the entry atomically (temporary file, then rename into place); returns its header as
 * readEntryHeader would read it back (this process looks the entry up without reading it again).
 */
export async function writeEntryFile(
  path: string,
  kind: EntryKind,
  tokens: readonly Token[],
  state: Buffer,
): Promise<EntryHeader> {
  const stateCrc32 = await checksum(state);
  const header = Buffer.from(
    JSON.stringify({
      version: 1,
      kind,
      tokenCount: tokens.length,
      stateBytes: state.length,
      stateCrc32,
    }),
  );
  const lengths = Buffer.alloc(4);
  lengths.writeUInt32LE(header.length);
  const tokenBytes = Buffer.from(Uint32Array.from(tokens).buffer);
  const temporary = `${path}.${randomUUID()}.tmp`;
  const file = await open(temporary, "w");
  try {
    // No fsync: a file a crash left short or garbled fails its size or CRC check and is removed.
    await file.writev([MAGIC, lengths, header, tokenBytes, state]);
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  await rename(temporary, path);
  return {
    kind,
    tokens: [...tokens],
    stateBytes: state.length,
    stateCrc32,
    stateOffset: PREFIX_BYTES + header.length + tokenBytes.length,
  };
}

/**
 * The header and tokens; throws (checksum_mismatch) when the file is not a whole entry. One read
 * covers the header and a conversation's tokens (each round trip to the thread pool counts when a
 * fresh process lists the folder on the way to its first token).
 */
export async function readEntryHeader(path: string): Promise<EntryHeader> {
  return (await readEntryHeaderAndTime(path)).header;
}

/** The header, and the file's modification time (its place in the eviction order). */
export async function readEntryHeaderAndTime(
  path: string,
): Promise<{ header: EntryHeader; modifiedAt: number }> {
  const file = await open(path, "r");
  try {
    const { size, mtimeMs } = await file.stat();
    let head = Buffer.allocUnsafe(Math.min(size, HEAD_READ_BYTES));
    head = head.subarray(0, (await file.read(head, 0, head.length, 0)).bytesRead);
    if (head.length < PREFIX_BYTES || !head.subarray(0, MAGIC.length).equals(MAGIC))
      throw invalid(path, "not a cache entry");
    const headerBytes = head.readUInt32LE(MAGIC.length);
    if (headerBytes > MAX_HEADER_BYTES || PREFIX_BYTES + headerBytes > head.length)
      throw invalid(path, "truncated header");
    const header = parseHeader(path, head.subarray(PREFIX_BYTES, PREFIX_BYTES + headerBytes));
    const tokensOffset = PREFIX_BYTES + headerBytes;
    const stateOffset = tokensOffset + header.tokenCount * 4;
    if (stateOffset + header.stateBytes !== size)
      throw invalid(
        path,
        `${size} bytes where its header promises ${stateOffset + header.stateBytes}`,
      );
    let tokenBuffer: Buffer;
    if (stateOffset <= head.length) tokenBuffer = head.subarray(tokensOffset, stateOffset);
    else {
      tokenBuffer = Buffer.allocUnsafe(header.tokenCount * 4);
      await file.read(tokenBuffer, 0, tokenBuffer.length, tokensOffset);
    }
    const tokens: Token[] = new Array<Token>(header.tokenCount);
    for (let index = 0; index < header.tokenCount; index += 1)
      tokens[index] = tokenBuffer.readUInt32LE(index * 4) as Token;
    const entryHeader: EntryHeader = {
      kind: header.kind,
      tokens,
      stateBytes: header.stateBytes,
      stateCrc32: header.stateCrc32,
      stateOffset,
    };
    return { header: entryHeader, modifiedAt: mtimeMs };
  } finally {
    await file.close();
  }
}

export interface EntryState {
  state: Buffer;
  /**
   * The check of the bytes against the header's CRC-32 (checksum_mismatch): it runs while llama.cpp
   * copies them into the sequence, and the caller awaits both before the sequence is used.
   */
  verified: Promise<void>;
}

/**
 * The state bytes, whole: mapped by `mapFile` when given (a fresh process's new 15 MB Buffer cost
 * ~7 ms of page faults before the first byte was read), else read; their checksum is checked in
 * `verified`.
 */
export async function readEntryState(
  path: string,
  header: EntryHeader,
  mapFile?: MapFile,
): Promise<EntryState> {
  const state =
    mapFile === undefined
      ? await readState(path, header)
      : await mapFile(path, header.stateOffset, header.stateBytes).catch((error: unknown) => {
          throw invalid(path, error instanceof Error ? error.message : String(error));
        });
  const verified = checksum(state).then((value) => {
    if (value !== header.stateCrc32) throw invalid(path, "its state fails its checksum");
  });
  // Awaited by the caller; never an unhandled rejection if the restore fails first.
  verified.catch(() => {});
  return { state, verified };
}

async function readState(path: string, header: EntryHeader): Promise<Buffer> {
  const file = await open(path, "r");
  try {
    const state = Buffer.allocUnsafe(header.stateBytes);
    const { bytesRead } = await file.read(state, 0, header.stateBytes, header.stateOffset);
    if (bytesRead !== header.stateBytes) throw invalid(path, "truncated state");
    return state;
  } finally {
    await file.close();
  }
}

function parseHeader(
  path: string,
  buffer: Buffer,
): { kind: EntryKind; tokenCount: number; stateBytes: number; stateCrc32: number } {
  let value: unknown;
  try {
    value = JSON.parse(buffer.toString("utf8"));
  } catch {
    throw invalid(path, "unreadable header");
  }
  const header = value as Record<string, unknown>;
  const count = (name: string): number => {
    const field = header[name];
    if (typeof field !== "number" || !Number.isInteger(field) || field < 0)
      throw invalid(path, `bad ${name} in header`);
    return field;
  };
  if (header.version !== 1 || !ENTRY_KINDS.includes(header.kind))
    throw invalid(path, "unknown entry version");
  return {
    kind: header.kind as EntryKind,
    tokenCount: count("tokenCount"),
    stateBytes: count("stateBytes"),
    stateCrc32: count("stateCrc32"),
  };
}

/** CRC-32 of the bytes, yielding to the event loop between slices. */
async function checksum(bytes: Buffer): Promise<number> {
  let value = 0;
  for (let offset = 0; offset < bytes.length; offset += CRC_SLICE_BYTES) {
    if (offset > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    value = crc32(bytes.subarray(offset, offset + CRC_SLICE_BYTES), value);
  }
  return value;
}
