// One rule for naming a session by id or id prefix, shared by `spark exec --resume`,
// `spark --session` and /resume: an exact id wins, otherwise the prefix must name exactly one.
export type SessionMatch<Session> = { session: Session } | { candidates: Session[] };

export function matchSessionId<Session>(
  sessions: readonly Session[],
  wanted: string,
  idOf: (session: Session) => string,
): SessionMatch<Session> {
  const exact = sessions.find((session) => idOf(session) === wanted);
  if (exact !== undefined) return { session: exact };
  const candidates = sessions.filter((session) => idOf(session).startsWith(wanted));
  const only = candidates[0];
  return candidates.length === 1 && only !== undefined ? { session: only } : { candidates };
}

/** The TUI's wording of a failed match. */
export function describeFailedMatch(wanted: string, candidates: readonly unknown[]): string {
  return candidates.length === 0
    ? `No session starts with ${wanted}.`
    : `${candidates.length} sessions start with ${wanted}; give more of the id.`;
}
