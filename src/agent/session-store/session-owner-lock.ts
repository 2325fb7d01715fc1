// One writer per session log: `<log>.lock` beside it names the owning process (pid, host). A
// second process is refused with that name; a lock whose process is gone (same host, no such
// pid) is taken over. Within one process opening twice is allowed (the app server shares one
// AgentSession per session), and every lock this process holds is removed when it exits.
import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import { SparkError } from "../../protocol/spark-error.ts";

export interface SessionOwner {
  pid: number;
  host: string;
  /** When it took the session (ISO time). */
  since: string;
}

/** Opening a session another live process writes to. */
export class SessionInUseError extends SparkError {
  constructor(
    readonly sessionId: string,
    readonly owner: SessionOwner,
  ) {
    const where = owner.host === os.hostname() ? "" : ` on ${owner.host}`;
    super(
      "invalid_request",
      `Session ${sessionId} is open in another spark process (pid ${owner.pid}${where}, since ${owner.since}); ` +
        `two writers would fork its log. Continue it there, quit that process, or join it through its \`spark serve\`.`,
    );
  }
}

/** Locks this process holds, by lock path: how many opens share each. */
const held = new Map<string, number>();
let exitHookInstalled = false;

export function sessionLockPath(logPath: string): string {
  return `${logPath}.lock`;
}

/** Takes the session's lock for this process, or throws SessionInUseError. Returns the release. */
export function acquireSessionLock(logPath: string, sessionId: string): () => void {
  const lockPath = sessionLockPath(logPath);
  const count = held.get(lockPath);
  if (count !== undefined) {
    held.set(lockPath, count + 1);
    return onceOnly(() => release(lockPath));
  }
  // Two tries: the second after removing a dead owner's lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (tryCreate(lockPath)) {
      held.set(lockPath, 1);
      installExitHook();
      return onceOnly(() => release(lockPath));
    }
    const owner = readOwner(lockPath);
    if (owner === undefined) continue; // Released between our try and the read: try again.
    if (ownerIsAlive(owner)) throw new SessionInUseError(sessionId, owner);
    // The owner crashed: its lock is stale, the session is free to take over.
    removeIfUnchanged(lockPath, owner);
  }
  const owner = readOwner(lockPath);
  if (owner !== undefined) throw new SessionInUseError(sessionId, owner);
  throw new SparkError("internal_error", `Could not take the session lock ${lockPath}.`);
}

function tryCreate(lockPath: string): boolean {
  const owner: SessionOwner = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
  };
  // Written whole first, then linked into place: link fails if the lock exists, and a reader
  // never sees a lock without its owner.
  const draft = `${lockPath}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(draft, `${JSON.stringify(owner)}\n`, { flag: "wx" });
  try {
    linkSync(draft, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

function readOwner(lockPath: string): SessionOwner | undefined {
  let text: string;
  try {
    text = readFileSync(lockPath, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as Partial<SessionOwner>;
    if (typeof parsed.pid === "number" && typeof parsed.host === "string")
      return { pid: parsed.pid, host: parsed.host, since: parsed.since ?? "an unknown time" };
  } catch {
    // Not a lock this code wrote (locks are linked into place whole): nobody owns it.
  }
  return { pid: 0, host: os.hostname(), since: "an unknown time" };
}

/** On this host, whether the pid runs; on another host it cannot be told, so it counts as alive. */
function ownerIsAlive(owner: SessionOwner): boolean {
  if (owner.host !== os.hostname()) return true;
  if (owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the pid runs under another user, which still holds the session.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes a stale lock unless another process took it over meanwhile. */
function removeIfUnchanged(lockPath: string, stale: SessionOwner): void {
  const now = readOwner(lockPath);
  if (now === undefined || now.pid !== stale.pid || now.since !== stale.since) return;
  try {
    unlinkSync(lockPath);
  } catch {
    // Already removed by another process taking over: its own try decides.
  }
}

function release(lockPath: string): void {
  const count = held.get(lockPath);
  if (count === undefined) return;
  if (count > 1) {
    held.set(lockPath, count - 1);
    return;
  }
  held.delete(lockPath);
  try {
    unlinkSync(lockPath);
  } catch {
    // Gone already (the sessions folder removed): nothing to release.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const lockPath of held.keys()) {
      try {
        unlinkSync(lockPath);
      } catch {
        // Best effort: a lock left behind names a dead pid and is taken over.
      }
    }
    held.clear();
  });
}

function onceOnly(action: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    action();
  };
}
