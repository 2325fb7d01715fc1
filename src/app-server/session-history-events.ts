// A logged session's events, for a client that resumes it: the agent events its log holds up to
// a given length, so the client folds them through the same code as live events and shows them
// as it showed them live (tool calls as one line, edits as diffs, the user's own words). Made
// lighter for the wire: a turn's text deltas joined, tool output cut to what a line shows.
import { open } from "node:fs/promises";
import type { SessionRecord } from "../agent/session-store/session-records.ts";
import type { SessionEvent } from "../protocol/agent/session-events.ts";

/** Records of the log that are not events (resume and undo read them). */
const NOT_EVENTS = new Set(["session", "message", "transcript-replaced", "undo-entry"]);
/** Tool output beyond the first line and this many last lines is cut (the model saw it whole). */
const TOOL_OUTPUT_TAIL_LINES = 8;
const TOOL_OUTPUT_CHARACTERS = 4_000;

/** The log's events in its first `length` bytes (what was written before the client attached). */
export async function readHistoryEvents(logPath: string, length: number): Promise<SessionEvent[]> {
  const text = await readPrefix(logPath, length);
  const events: SessionEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let record: SessionRecord;
    try {
      record = JSON.parse(line) as SessionRecord;
    } catch {
      continue; // a line torn by a crash mid-write
    }
    if (NOT_EVENTS.has(record.type)) continue;
    const { at: _at, ...event } = record as SessionEvent & { at?: string };
    addEvent(events, event);
  }
  return events;
}

async function readPrefix(logPath: string, length: number): Promise<string> {
  const file = await open(logPath, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await file.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await file.close();
  }
}

function addEvent(events: SessionEvent[], event: SessionEvent): void {
  const last = events.at(-1);
  if (event.type === "text-delta" && last?.type === "text-delta" && last.turnId === event.turnId) {
    events[events.length - 1] = { ...last, text: last.text + event.text };
    return;
  }
  if (event.type === "tool-result") {
    events.push({ ...event, output: shortenOutput(event.output) });
    return;
  }
  events.push(event);
}

function shortenOutput(output: string): string {
  const lines = output.split("\n");
  const shortened =
    lines.length <= TOOL_OUTPUT_TAIL_LINES + 2
      ? output
      : [
          lines[0],
          `… ${lines.length - 1 - TOOL_OUTPUT_TAIL_LINES} lines`,
          ...lines.slice(-TOOL_OUTPUT_TAIL_LINES),
        ].join("\n");
  if (shortened.length <= TOOL_OUTPUT_CHARACTERS) return shortened;
  // Long lines: the start of the first (an error's reason) and the end (a command's exit code).
  return `${shortened.slice(0, 200)}\n…\n${shortened.slice(-(TOOL_OUTPUT_CHARACTERS - 200))}`;
}
