import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { acquireSessionLock, SessionInUseError, sessionLockPath } from "./session-owner-lock.ts";

const LOCK_MODULE = fileURLToPath(new URL("./session-owner-lock.ts", import.meta.url));

/** Another process that takes the lock and says so, then waits to be killed. */
async function otherOwner(logPath: string): Promise<ChildProcess> {
  const program = `
    const { acquireSessionLock } = await import(${JSON.stringify(LOCK_MODULE)});
    acquireSessionLock(${JSON.stringify(logPath)}, "abcd1234");
    console.log("locked");
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  expect(line.toString()).toContain("locked");
  return child;
}

let folder: string;
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
  rmSync(folder, { recursive: true, force: true });
});

describe("one owner per session log", () => {
  it("refuses a second process, naming the owner, and takes over once the owner crashed", async () => {
    folder = mkdtempSync(path.join(os.tmpdir(), "spark-lock-"));
    const logPath = path.join(folder, "2026-01-01-abcd1234.jsonl");
    writeFileSync(logPath, "");
    child = await otherOwner(logPath);

    let refused: unknown;
    try {
      acquireSessionLock(logPath, "abcd1234");
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(SessionInUseError);
    expect((refused as SessionInUseError).owner.pid).toBe(child.pid);
    expect((refused as Error).message).toContain(`pid ${child.pid}`);

    // Killed without a chance to clean up: its lock stays, naming a pid that is gone.
    child.kill("SIGKILL");
    await once(child, "exit");
    child = undefined;
    expect(existsSync(sessionLockPath(logPath))).toBe(true);
    const release = acquireSessionLock(logPath, "abcd1234");
    expect(JSON.parse(readFileSync(sessionLockPath(logPath), "utf8"))).toMatchObject({
      pid: process.pid,
    });
    release();
    expect(existsSync(sessionLockPath(logPath))).toBe(false);
  });

  it("shares the lock within one process and releases it with the last holder", () => {
    folder = mkdtempSync(path.join(os.tmpdir(), "spark-lock-"));
    const logPath = path.join(folder, "2026-01-01-abcd1234.jsonl");
    const first = acquireSessionLock(logPath, "abcd1234");
    const second = acquireSessionLock(logPath, "abcd1234");
    first();
    first();
    expect(existsSync(sessionLockPath(logPath))).toBe(true);
    second();
    expect(existsSync(sessionLockPath(logPath))).toBe(false);
  });
});
