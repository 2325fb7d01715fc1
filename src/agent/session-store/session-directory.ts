// The sessions folder (`<sparkHome>/sessions`): lists logs newest first and finds one by id, id
// prefix or "last".
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { SparkError } from "../../protocol/spark-error.ts";
import { matchSessionId } from "../../protocol/agent/match-session-id.ts";
import { readSession, type SessionSummary } from "./read-session.ts";

export function sessionsDirectory(sparkHome: string): string {
  return path.join(sparkHome, "sessions");
}

/** Summaries by log path, reused while the file's size and mtime are unchanged. */
const summaryCache = new Map<string, { size: number; mtimeMs: number; summary: SessionSummary }>();

/** Newest first. Only logs that changed since the last listing are read again. */
export async function listSessions(directory: string): Promise<SessionSummary[]> {
  const names = await readdir(directory).catch(() => [] as string[]);
  const summaries: SessionSummary[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".jsonl"))) {
    const summary = await cachedSummary(path.join(directory, name));
    if (summary !== undefined) summaries.push(summary);
  }
  return summaries.sort((left, right) => (left.updatedAt < right.updatedAt ? 1 : -1));
}

async function cachedSummary(file: string): Promise<SessionSummary | undefined> {
  const stats = await stat(file).catch(() => undefined);
  if (stats === undefined) {
    summaryCache.delete(file);
    return undefined;
  }
  const cached = summaryCache.get(file);
  if (cached !== undefined && cached.size === stats.size && cached.mtimeMs === stats.mtimeMs)
    return cached.summary;
  const loaded = await readSession(file).catch(() => undefined);
  if (loaded === undefined) summaryCache.delete(file);
  else
    summaryCache.set(file, { size: stats.size, mtimeMs: stats.mtimeMs, summary: loaded.summary });
  return loaded?.summary;
}

/** The path of the log named for this id (`<date>-<id>.jsonl`), without reading it. */
export async function findSessionLog(directory: string, id: string): Promise<string | undefined> {
  const names = await readdir(directory).catch(() => [] as string[]);
  const name = names.find((entry) => entry.endsWith(`-${id}.jsonl`));
  return name === undefined ? undefined : path.join(directory, name);
}

/** `last` is the most recently active session; otherwise an id or a unique prefix of one. */
export async function findSession(directory: string, reference: string): Promise<SessionSummary> {
  const sessions = await listSessions(directory);
  if (reference === "last") {
    const last = sessions[0];
    if (last === undefined)
      throw new SparkError("invalid_request", `There are no sessions in ${directory} yet.`);
    return last;
  }
  const match = matchSessionId(sessions, reference, (session) => session.id);
  if ("session" in match) return match.session;
  const matches = match.candidates;
  throw new SparkError(
    "invalid_request",
    matches.length > 1
      ? `Session id "${reference}" is ambiguous: ${matches.map((session) => session.id).join(", ")}.`
      : `No session "${reference}" in ${directory}; run \`spark sessions\` to list them.`,
  );
}
