// A temporary directory for one test suite: made before its first test, removed after its last.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";

/** Call inside a describe block; the returned function gives a path in the directory. */
export function suiteDirectory(prefix: string): (...names: string[]) => string {
  let directory: string | undefined;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
  });
  return (...names) => {
    if (directory === undefined) throw new Error("the suite's directory is made in beforeAll");
    return join(directory, ...names);
  };
}
