// The system message: Spark's working style (prompts/system.md) plus the AGENTS.md files from the
// repository root down to the working directory, nearest last, capped so they cannot crowd out work.
// AGENTS.md files are read as read_file reads (no link out, no hard-linked file); one refused is
// named with the reason instead of its text.
import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  EditError,
  openWorkspaceFile,
  resolveWorkspacePath,
  type WorkspacePath,
} from "../edits/index.ts";

export const SYSTEM_PROMPT_PATH = fileURLToPath(
  new URL("../../../prompts/system.md", import.meta.url),
);
export const AGENTS_FILE_NAME = "AGENTS.md";
export const MAX_AGENTS_BYTES = 32 * 1024;

export interface InstructionOptions {
  /** The working directory: AGENTS.md files are collected from the repository root down to it. */
  cwd: string;
  systemPromptPath?: string;
  maxAgentsBytes?: number;
}

export async function loadInstructions(options: InstructionOptions): Promise<string> {
  const base = (await readFile(options.systemPromptPath ?? SYSTEM_PROMPT_PATH, "utf8")).trim();
  const agents = await loadAgentsFiles(options.cwd, options.maxAgentsBytes ?? MAX_AGENTS_BYTES);
  const workspace = `Workspace root: ${options.cwd}. Tool paths are relative to it.`;
  return [base, workspace, agents].filter((part) => part !== "").join("\n\n");
}

/** AGENTS.md files, repository root first, each under a header naming it; "" when there are none. */
export async function loadAgentsFiles(cwd: string, maxBytes: number): Promise<string> {
  const workspaceRoot = realOrSelf(cwd);
  const root = findRepositoryRoot(workspaceRoot) ?? workspaceRoot;
  const directories: string[] = [];
  for (let directory = workspaceRoot; ; directory = path.dirname(directory)) {
    directories.unshift(directory);
    if (directory === root || path.dirname(directory) === directory) break;
  }
  const sections: string[] = [];
  let remaining = maxBytes;
  for (const directory of directories) {
    const name = path
      .relative(root, path.join(directory, AGENTS_FILE_NAME))
      .split(path.sep)
      .join("/");
    // The working folder's own file must stay inside it; one above it (from the repository root
    // down) must stay inside the repository.
    const boundary = directory === workspaceRoot ? workspaceRoot : root;
    const read = await readAgentsFile(boundary, path.join(directory, AGENTS_FILE_NAME), maxBytes);
    if (read === undefined) continue;
    if ("skipped" in read) {
      sections.push(`## Project instructions from ${name}\n\n[${name} skipped: ${read.skipped}]`);
      continue;
    }
    if (read.text.trim() === "") continue;
    let body = read.text.trim();
    if (Buffer.byteLength(body) > remaining) {
      body = `${Buffer.from(body).subarray(0, Math.max(0, remaining)).toString("utf8")}\n[${name} truncated: project instructions are capped at ${maxBytes} bytes]`;
    }
    sections.push(`## Project instructions from ${name}\n\n${body}`);
    remaining -= Buffer.byteLength(body);
    if (remaining <= 0) break;
  }
  return sections.join("\n\n");
}

/** The file's text, why it was refused (never its content), or undefined when there is none. */
async function readAgentsFile(
  boundary: string,
  file: string,
  maxBytes: number,
): Promise<{ text: string } | { skipped: string } | undefined> {
  let target: WorkspacePath;
  try {
    target = resolveWorkspacePath(boundary, file);
  } catch (error) {
    if (!(error instanceof EditError)) return undefined;
    return {
      skipped: `it is a symbolic link (or inside one) whose real path is outside ${boundary}; Spark reads project instructions only from files inside it`,
    };
  }
  const opened = await openWorkspaceFile(target).catch((error: unknown) =>
    error instanceof EditError ? { refused: error } : undefined,
  );
  if (opened === undefined) return undefined;
  if ("refused" in opened) {
    const { refused } = opened;
    return refused.editCode === "hard_linked_file"
      ? { skipped: `it ${refused.message.slice((refused.path ?? "").length + 1)}` }
      : { skipped: `it was moved or linked outside ${boundary} while being read` };
  }
  try {
    if (!opened.stats.isFile()) return undefined;
    // Only the capped prefix can reach the prompt; a few times the cap leaves room to trim it.
    const prefix = Buffer.alloc(Math.min(opened.stats.size, maxBytes * 4 + 4096));
    const { bytesRead } = await opened.handle.read(prefix, 0, prefix.length, 0);
    return { text: prefix.subarray(0, bytesRead).toString("utf8") };
  } finally {
    await opened.handle.close();
  }
}

function realOrSelf(directory: string): string {
  try {
    return realpathSync(directory);
  } catch {
    return directory;
  }
}

export function findRepositoryRoot(start: string): string | undefined {
  for (let directory = start; ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, ".git"))) return directory;
    if (path.dirname(directory) === directory) return undefined;
  }
}
