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
