import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeStaleTempFiles, writeFileAtomic } from "./write-file-atomic.ts";

let directory: string;

beforeEach(() => {
  directory = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-atomic-")));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("replaces the content and keeps the mode it is given", async () => {
    const target = path.join(directory, "run.sh");
    writeFileSync(target, "old", { mode: 0o755 });
    await writeFileAtomic(target, Buffer.from("new"), { mode: 0o755 });
    expect(readFileSync(target, "utf8")).toBe("new");
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(directory)).toEqual(["run.sh"]);
  });

  it("leaves the original whole and no temp file when it fails between write and rename", async () => {
    const target = path.join(directory, "a.txt");
    writeFileSync(target, "original");
    let sawTemp = "";
    await expect(
      writeFileAtomic(target, Buffer.from("replacement"), {
        beforeRename: (tempPath) => {
          sawTemp = readFileSync(tempPath, "utf8");
          throw new Error("simulated crash");
        },
      }),
    ).rejects.toThrow("simulated crash");
    expect(sawTemp).toBe("replacement");
    expect(readFileSync(target, "utf8")).toBe("original");
    expect(readdirSync(directory)).toEqual(["a.txt"]);
  });

  it("cleans temp files left by a dead writer on the next write", async () => {
    const target = path.join(directory, "a.txt");
    writeFileSync(target, "original");
    // pid 2^22+ is above Linux's pid_max default, so no live process owns it.
    const leftover = path.join(directory, ".a.txt.4194999.0badc0de.spark-tmp");
    const otherTarget = path.join(directory, ".b.txt.4194999.0badc0de.spark-tmp");
    writeFileSync(leftover, "partial");
    writeFileSync(otherTarget, "partial");
    await writeFileAtomic(target, Buffer.from("next"));
    expect(readdirSync(directory).sort()).toEqual([".b.txt.4194999.0badc0de.spark-tmp", "a.txt"]);
    expect(await removeStaleTempFiles(directory)).toEqual([otherTarget]);
    expect(readdirSync(directory)).toEqual(["a.txt"]);
  });

  it("does not start a write once the signal is aborted", async () => {
    const target = path.join(directory, "a.txt");
    writeFileSync(target, "original");
    const controller = new AbortController();
    controller.abort();
    await expect(
      writeFileAtomic(target, Buffer.from("x"), { signal: controller.signal }),
    ).rejects.toMatchObject({ code: "cancelled" });
    expect(readFileSync(target, "utf8")).toBe("original");
  });
});
