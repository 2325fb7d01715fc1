// The system message: Spark's working style (prompts/system.md) plus the AGENTS.md files from the
// repository root down to the working directory, nearest last, capped so they cannot crowd out work.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

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
  const root = findRepositoryRoot(cwd) ?? cwd;
  const directories: string[] = [];
  for (let directory = cwd; ; directory = path.dirname(directory)) {
    directories.unshift(directory);
    if (directory === root || path.dirname(directory) === directory) break;
  }
  const sections: string[] = [];
  let remaining = maxBytes;
  for (const directory of directories) {
    const file = path.join(directory, AGENTS_FILE_NAME);
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined || text.trim() === "") continue;
    const name = path.relative(root, file).split(path.sep).join("/");
    let body = text.trim();
    if (Buffer.byteLength(body) > remaining) {
      body = `${Buffer.from(body).subarray(0, Math.max(0, remaining)).toString("utf8")}\n[${name} truncated: project instructions are capped at ${maxBytes} bytes]`;
    }
    sections.push(`## Project instructions from ${name}\n\n${body}`);
    remaining -= Buffer.byteLength(body);
    if (remaining <= 0) break;
  }
  return sections.join("\n\n");
}

export function findRepositoryRoot(start: string): string | undefined {
  for (let directory = start; ; directory = path.dirname(directory)) {
    if (existsSync(path.join(directory, ".git"))) return directory;
    if (path.dirname(directory) === directory) return undefined;
  }
}
