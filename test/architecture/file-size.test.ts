// The house rule "under ~400 lines a file" (AGENTS.md, STYLE.md), held for every file of ours:
// production code, tests and their support, the bench, scripts and the native addons' own sources
// (not the llama.cpp sources and headers copied in at build time). A file over the limit fails
// here with its name and length: split it where it holds two things.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const MAXIMUM_LINES = 400;
const FOLDERS = [
  "src",
  "test",
  "web/src",
  "editors/vscode/src",
  "editors/vscode/scripts",
  "bench",
  "scripts",
  "bin",
  "native/generation-loop/src",
  "native/chat-format/src",
];
const CODE = /\.(?:ts|tsx|mts|js|mjs|cjs|cpp|cc|h|hpp|sh)$/;
const NOT_OURS = new Set(["node_modules", "dist", "build", "results", ".code-server"]);

function codeFiles(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return NOT_OURS.has(entry.name) ? [] : codeFiles(full);
    return CODE.test(entry.name) ? [full] : [];
  });
}

function lineCount(file: string): number {
  const text = fs.readFileSync(file, "utf8");
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

describe("file size", () => {
  it(`keeps every source file at ${MAXIMUM_LINES} lines or fewer`, () => {
    const files = FOLDERS.flatMap((folder) => codeFiles(path.join(repositoryRoot, folder)));
    const over = files
      .map((file) => ({ file: path.relative(repositoryRoot, file), lines: lineCount(file) }))
      .filter(({ lines }) => lines > MAXIMUM_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    // The walk found the tree (a wrong root would pass with nothing read).
    expect(files.length).toBeGreaterThan(800);
    expect(over).toEqual([]);
  });
});
