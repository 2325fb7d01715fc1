// A session nobody wrote in (started, then left without a message) is not kept: its log would
// only list as "(no messages)" in /resume and the browser's sidebar, one more per launch.
import { unlink } from "node:fs/promises";
import { readSession } from "./read-session.ts";
import { findSessionLog } from "./session-directory.ts";
import { sessionLockPath } from "./session-owner-lock.ts";
import { existsSync } from "node:fs";

/** Removes the session's log if it holds no turn and no process owns it; true when removed. */
export async function removeEmptySession(directory: string, sessionId: string): Promise<boolean> {
  const logPath = await findSessionLog(directory, sessionId);
  if (logPath === undefined) return false;
  // Owned by a live process (another spark opened it meanwhile): not ours to remove.
  if (existsSync(sessionLockPath(logPath))) return false;
  const loaded = await readSession(logPath).catch(() => undefined);
  if (loaded === undefined || loaded.summary.turns > 0 || loaded.transcript.some(isUserMessage))
    return false;
  await unlink(logPath).catch(() => undefined);
  return true;
}

function isUserMessage(message: { role: string }): boolean {
  return message.role === "user";
}
