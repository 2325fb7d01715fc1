// Test helper: a real temporary workspace folder with a ledger and undo stack, removed afterwards.
import {
  existsSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileReadLedger } from "../../../src/agent/edits/file-read-ledger.ts";
import { UndoStack } from "../../../src/agent/edits/undo-stack.ts";

export interface TempWorkspace {
  root: string;
  ledger: FileReadLedger;
  undoStack: UndoStack;
  write(relativePath: string, content: string | Uint8Array): string;
  read(relativePath: string): string;
  /** Writes the file and records it as read, as the read_file tool would. */
  writeAndRead(relativePath: string, content: string): string;
  remove(): void;
}

/**
 * `memoryBacked` puts the workspace on /dev/shm where there is one: fsync is free there, which
 * keeps tests that apply hundreds of edits fast. Crash-safety tests use the real temp folder.
 */
export function createTempWorkspace(
  prefix = "spark-edits-",
  options: { memoryBacked?: boolean } = {},
): TempWorkspace {
  const parent = options.memoryBacked === true && existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir();
  const root = realpathSync(mkdtempSync(path.join(parent, prefix)));
  const ledger = new FileReadLedger({ workspaceRoot: root });
  const undoStack = new UndoStack();
  const write = (relativePath: string, content: string | Uint8Array) => {
    const absolute = path.join(root, relativePath);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
    return absolute;
  };
  return {
    root,
    ledger,
    undoStack,
    write,
    read: (relativePath) => readFileSync(path.join(root, relativePath), "utf8"),
    writeAndRead(relativePath, content) {
      const absolute = write(relativePath, content);
      ledger.recordRead(relativePath, readFileSync(absolute));
      return absolute;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
