// Test helper: a real temporary workspace and the ToolContext the agent would hand a tool there.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileReadLedger, UndoStack } from "../../../src/agent/edits/index.ts";
import type { ToolContext } from "../../../src/agent/tools/agent-tool.ts";
import type { CommandApproval } from "../../../src/agent/approval/command-approval.ts";
import {
  noCommandSandbox,
  type CommandSandbox,
} from "../../../src/agent/sandbox/command-sandbox.ts";

export interface ToolWorkspace {
  root: string;
  context: ToolContext;
  write(relativePath: string, content: string): void;
  read(relativePath: string): string;
  remove(): void;
}

export function createToolWorkspace(
  options: {
    userText?: string;
    approval?: CommandApproval;
    signal?: AbortSignal;
    /** Default: none, so a tool test behaves the same on every machine. */
    sandbox?: CommandSandbox;
  } = {},
): ToolWorkspace {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-tools-")));
  const context: ToolContext = {
    workspaceRoot: root,
    ledger: new FileReadLedger({ workspaceRoot: root }),
    undoStack: new UndoStack(),
    signal: options.signal ?? new AbortController().signal,
    commandApproval: options.approval ?? { autoApprove: false },
    commandSandbox: options.sandbox ?? noCommandSandbox("a tool test"),
    userTextThisTurn: options.userText ?? "",
  };
  return {
    root,
    context,
    write(relativePath, content) {
      const absolute = path.join(root, relativePath);
      mkdirSync(path.dirname(absolute), { recursive: true });
      writeFileSync(absolute, content);
    },
    read: (relativePath) => readFileSync(path.join(root, relativePath), "utf8"),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
