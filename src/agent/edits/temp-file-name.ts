// How the atomic writer names its temp files: `.<target>.<pid>.<8 hex>.spark-tmp` beside the
// target, so a leftover says which file it was for and which process wrote it.
import { randomBytes } from "node:crypto";
import path from "node:path";

const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.spark-tmp$/;

/** The temp file's name for a target named `baseName`, in the same folder. */
export function tempNameFor(baseName: string): string {
  return `.${baseName}.${process.pid}.${randomBytes(4).toString("hex")}.spark-tmp`;
}

export function tempPathFor(targetPath: string): string {
  return path.join(path.dirname(targetPath), tempNameFor(path.basename(targetPath)));
}

/** The target's base name and the writer's pid, or undefined for any other file name. */
export function parseTempName(name: string): { baseName: string; pid: number } | undefined {
  const parsed = TEMP_NAME.exec(name);
  if (parsed?.[1] === undefined || parsed[2] === undefined) return undefined;
  return { baseName: parsed[1], pid: Number(parsed[2]) };
}

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
