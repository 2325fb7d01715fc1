// Folds a session log back into what resume, undo and `spark sessions` need: the transcript, the
// undo entries still standing, and a summary. Tolerates a torn last line from a crash.
import { open, readFile } from "node:fs/promises";
import { SparkError } from "../../protocol/spark-error.ts";
import type { UndoEntry } from "../edits/index.ts";
import { closeOpenToolCalls, type TranscriptMessage } from "../transcript.ts";
import type { SessionHeader, SessionRecord } from "./session-records.ts";

export interface SessionSummary {
  id: string;
  path: string;
  startedAt: string;
  /** The last record's time. */
  updatedAt: string;
  cwd: string;
  model?: string;
  /** The header's owner; absent for the local user's sessions (see SessionHeader). */
  tenant?: string;
  firstInstruction: string;
  turns: number;
}

export interface LoadedSession {
  summary: SessionSummary;
  transcript: TranscriptMessage[];
  undoEntries: UndoEntry[];
  /** Files put back by `spark undo` after the last turn: the model has not been told yet. */
  undoneSinceLastTurn: string[];
}

export async function readSession(file: string): Promise<LoadedSession> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new SparkError(
      "invalid_request",
      `Cannot read the session log ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  let header: SessionHeader | undefined;
  let transcript: TranscriptMessage[] = [];
  let undoEntries: UndoEntry[] = [];
  let firstInstruction: string | undefined;
  let turns = 0;
  let updatedAt = "";
  let undoneSinceLastTurn: string[] = [];
  for (const [index, line] of lines.entries()) {
    let record: SessionRecord;
    try {
      record = JSON.parse(line) as SessionRecord;
    } catch (error) {
      if (index === lines.length - 1) break; // a line torn by a crash mid-write
      throw new SparkError("invalid_request", `${file}:${index + 1} is not valid JSON.`, {
        cause: error,
      });
    }
    updatedAt = record.at ?? updatedAt;
    switch (record.type) {
      case "session":
        header = record;
        break;
      case "message":
        transcript.push(record.message);
        break;
      case "transcript-replaced":
        transcript = [...record.messages];
        break;
      case "undo-entry":
        undoEntries.push(record.entry);
        break;
      case "edit-undone":
        undoEntries = undoEntries.filter((entry) => entry.id !== record.undoEntryId);
        undoneSinceLastTurn.push(...record.files.map((file) => file.path));
        break;
      case "turn-started":
        undoneSinceLastTurn = [];
        turns += 1;
        firstInstruction ??= record.text;
        break;
      default:
        break;
    }
  }
  if (header === undefined) {
    throw new SparkError(
      "invalid_request",
      `${file} is not a Spark session log (no session header).`,
    );
  }
  const summary: SessionSummary = {
    id: header.id,
    path: file,
    startedAt: header.startedAt,
    updatedAt: updatedAt || header.startedAt,
    cwd: header.cwd,
    firstInstruction: firstInstruction ?? "",
    turns,
  };
  if (header.model !== undefined) summary.model = header.model;
  if (header.tenant !== undefined) summary.tenant = header.tenant;
  return {
    summary,
    transcript: closeOpenToolCalls(
      transcript,
      "Not run: the session ended before this tool call finished.",
    ),
    undoEntries,
    undoneSinceLastTurn,
  };
}

/** A header line longer than this is not one Spark wrote (a cwd is at most PATH_MAX). */
const HEADER_READ_BYTES = 64 * 1024;

/**
 * Only the first line's header, for a check that must not cost a whole log's read (who owns the
 * session); undefined when the file is unreadable or does not open with a session header.
 */
export async function readSessionHeader(file: string): Promise<SessionHeader | undefined> {
  let text: string;
  try {
    const handle = await open(file, "r");
    try {
      const buffer = Buffer.allocUnsafe(HEADER_READ_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEADER_READ_BYTES, 0);
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  const newline = text.indexOf("\n");
  try {
    const record = JSON.parse(newline < 0 ? text : text.slice(0, newline)) as SessionRecord;
    return record.type === "session" ? record : undefined;
  } catch {
    return undefined;
  }
}
