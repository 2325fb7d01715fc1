// Opening a write's folder link-free: both the /proc/self/fd walk (Linux) and the path fallback
// create missing folders inside, refuse a link anywhere on the way, and name entries so that a
// rename lands in the folder that was opened.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { promises as fsp } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { descriptorPathsAvailable } from "./descriptor-paths.ts";
import { EditError } from "./edit-error.ts";
import { openByPath, openThroughDescriptors } from "./workspace-directory.ts";

let root: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-directory-")));
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-directory-outside-")));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const openers = [
  {
    name: "through /proc/self/fd",
    open: openThroughDescriptors,
    skip: !descriptorPathsAvailable(),
  },
  { name: "by path (fallback)", open: openByPath, skip: false },
];

describe.each(openers)("opening a workspace folder $name", ({ open, skip }) => {
  it.skipIf(skip)("creates missing folders and renames inside the folder it opened", async () => {
    const directory = await open(root, "a/b", { create: true });
    try {
      await fsp.writeFile(directory?.entry("x.tmp") ?? "", "x");
      await fsp.rename(directory?.entry("x.tmp") ?? "", directory?.entry("x.txt") ?? "");
      directory?.assertInside();
    } finally {
      await directory?.close();
    }
    expect(readdirSync(path.join(root, "a", "b"))).toEqual(["x.txt"]);
    expect(directory?.absolutePath).toBe(path.join(root, "a", "b"));
  });

  it.skipIf(skip)("answers undefined for a missing folder it may not create", async () => {
    expect(await open(root, "missing/deeper", { create: false })).toBeUndefined();
    expect(existsSync(path.join(root, "missing"))).toBe(false);
  });

  it.skipIf(skip)("refuses a link on the way, creating nothing outside", async () => {
    mkdirSync(path.join(root, "real"));
    symlinkSync(outside, path.join(root, "real", "link"));
    const failure = await open(root, "real/link/new", { create: true }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EditError);
    expect((failure as EditError).editCode).toBe("outside_workspace");
    expect(readdirSync(outside)).toEqual([]);
  });

  it.skipIf(skip)("fails on a file where a folder should be", async () => {
    writeFileSync(path.join(root, "file"), "x");
    await expect(open(root, "file/sub", { create: true })).rejects.toThrow();
  });
});
