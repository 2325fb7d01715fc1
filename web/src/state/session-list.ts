// The session list: summaries from `session/list`, kept current by `session/updated`, live
// sessions first and newest first within each group.
import type { SessionSummary } from "../../../src/protocol/agent/index.ts";

export function mergeSession(
  sessions: readonly SessionSummary[],
  updated: SessionSummary,
): SessionSummary[] {
  const index = sessions.findIndex((session) => session.sessionId === updated.sessionId);
  const next = sessions.slice();
  if (index < 0) next.push(updated);
  else next[index] = { ...sessions[index], ...updated };
  return sortSessions(next);
}

export function sortSessions(sessions: readonly SessionSummary[]): SessionSummary[] {
  return sessions.slice().sort((left, right) => {
    if (left.live !== right.live) return left.live ? -1 : 1;
    return (right.startedAt ?? "").localeCompare(left.startedAt ?? "");
  });
}

export function statusLabel(session: SessionSummary): string {
  if (!session.live) return "saved";
  if (session.status === "running") return "streaming";
  if (session.status === "awaiting-approval") return "waiting for approval";
  return "idle";
}

export function sessionTitle(session: SessionSummary): string {
  return session.title ?? `Session ${session.sessionId.slice(0, 8)}`;
}

/**
 * When each session started, for the sessions whose titles are the same (a list of five "Fix the
 * tests" is no help): local date and time, to the second where the minute is not enough.
 */
export function startTimesForSameTitles(sessions: readonly SessionSummary[]): Map<string, string> {
  const byTitle = new Map<string, SessionSummary[]>();
  for (const session of sessions) {
    const title = sessionTitle(session);
    byTitle.set(title, [...(byTitle.get(title) ?? []), session]);
  }
  const times = new Map<string, string>();
  for (const group of byTitle.values()) {
    if (group.length < 2) continue;
    const minutes = group.map((session) => formatStart(session.startedAt, false));
    for (const [index, session] of group.entries()) {
      const minute = minutes[index] ?? "";
      const clash = minutes.filter((other) => other === minute).length > 1;
      const label = clash ? formatStart(session.startedAt, true) : minute;
      if (label !== "") times.set(session.sessionId, label);
    }
  }
  return times;
}

function formatStart(startedAt: string | undefined, withSeconds: boolean): string {
  const date = startedAt === undefined ? undefined : new Date(startedAt);
  if (date === undefined || Number.isNaN(date.getTime())) return "";
  const two = (value: number): string => String(value).padStart(2, "0");
  const day = `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
  const time = `${two(date.getHours())}:${two(date.getMinutes())}`;
  return `${day} ${time}${withSeconds ? `:${two(date.getSeconds())}` : ""}`;
}
