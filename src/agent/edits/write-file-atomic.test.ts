import {
  existsSync,
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
    const ownLive = path.join(directory, `.c.txt.${process.pid}.0badc0de.spark-tmp`);
    writeFileSync(ownLive, "in flight");
    await writeFileAtomic(target, Buffer.from("next"));
    // Every dead writer's leftover in the folder goes, not only the one for this target.
    expect(readdirSync(directory).sort()).toEqual([path.basename(ownLive), "a.txt"]);
    expect(existsSync(leftover) || existsSync(otherTarget)).toBe(false);
    expect(await removeStaleTempFiles(directory)).toEqual([]);
  });

  it("stops a large write part-way when aborted and removes its temp file", async () => {
    const target = path.join(directory, "big.bin");
    writeFileSync(target, "original");
    const controller = new AbortController();
    const writing = writeFileAtomic(target, Buffer.alloc(64 * 1024 * 1024, 1), {
      signal: controller.signal,
    });
    controller.abort();
    await expect(writing).rejects.toMatchObject({ code: "cancelled" });
    expect(readFileSync(target, "utf8")).toBe("original");
    expect(readdirSync(directory)).toEqual(["big.bin"]);
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
