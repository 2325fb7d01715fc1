// One line per session for /sessions and /resume: title, when, where, and whether it runs now.
import type { SessionSummary } from "../../protocol/agent/agent-methods.ts";

export function describeSession(session: SessionSummary): string {
  const when =
    session.startedAt === undefined ? "" : `${session.startedAt.slice(0, 16).replace("T", " ")} `;
  const state = session.live ? session.status : "saved";
  return `${when}${session.title ?? "(no messages)"} — ${state}, ${session.cwd}`;
}
