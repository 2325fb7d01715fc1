// list_files and search on real trees: nested .gitignore files (with negation), skipped .git and
// node_modules, globs, the result cap, and a generated 10k-file repository (time printed, not asserted).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  createToolWorkspace,
  type ToolWorkspace,
} from "../../../test/agent/support/tool-context.ts";
import { ToolRegistry } from "./tool-registry.ts";

const registry = new ToolRegistry();
let workspace: ToolWorkspace;
afterEach(() => workspace.remove());

async function call(name: string, args: Record<string, unknown>) {
  return registry
    .prepare({ id: "c", name, arguments: JSON.stringify(args) })
    .run(workspace.context);
}

function createIgnoringRepository(): void {
  workspace = createToolWorkspace();
  mkdirSync(path.join(workspace.root, ".git"));
  workspace.write(".git/HEAD", "ref: refs/heads/main\n");
  workspace.write(".gitignore", "*.log\ndist/\n");
  workspace.write("src/app.ts", "export function start() {}\n");
  workspace.write("src/app.log", "start\n");
  workspace.write("src/generated/.gitignore", "*\n!keep.ts\n!.gitignore\n");
  workspace.write("src/generated/keep.ts", "export const start = 1;\n");
  workspace.write("src/generated/skip.ts", "export const start = 2;\n");
  workspace.write("dist/app.js", "function start() {}\n");
  workspace.write("node_modules/lib/index.js", "function start() {}\n");
  workspace.write("README.md", "Call start() to begin.\n");
}

describe("list_files", () => {
  it("honours nested .gitignore files and skips .git and node_modules", async () => {
    createIgnoringRepository();
    const result = await call("list_files", {});
    expect(result.output.split("\n")).toEqual([
      ".gitignore",
      "README.md",
      "src/app.ts",
      "src/generated/.gitignore",
      "src/generated/keep.ts",
    ]);
  });

  it("lists one folder, filtered by a glob", async () => {
    createIgnoringRepository();
    expect((await call("list_files", { path: "src", glob: "*.ts" })).output).toBe(
      "src/app.ts\nsrc/generated/keep.ts",
    );
    expect((await call("list_files", { glob: "*.py" })).output).toBe(
      "No files match *.py in the workspace.",
    );
  });
});

describe("search", () => {
  it("finds regex matches as path:line: text in files git would see", async () => {
    createIgnoringRepository();
    const result = await call("search", { pattern: "start\\(" });
    expect(result.output).toBe(
      "README.md:1: Call start() to begin.\nsrc/app.ts:1: export function start() {}",
    );
  });

  it("stops at maxResults and explains an invalid pattern", async () => {
    createIgnoringRepository();
    const capped = await call("search", { pattern: "start", maxResults: 2 });
    expect(capped.output.split("\n")).toHaveLength(3);
    expect(capped.output).toContain("[stopped at 2 results");
    const invalid = await call("search", { pattern: "start(" });
    expect(invalid.isError).toBe(true);
    expect(invalid.output).toContain("not a valid regular expression");
  });

  it("walks a generated repository of 10,000 files", async () => {
    workspace = createToolWorkspace();
    mkdirSync(path.join(workspace.root, ".git"));
    writeFileSync(path.join(workspace.root, ".gitignore"), "ignored-*/\n");
    for (let directory = 0; directory < 100; directory += 1) {
      const folder = path.join(
        workspace.root,
        `${directory % 10 === 0 ? "ignored" : "pkg"}-${directory}`,
        "src",
      );
      mkdirSync(folder, { recursive: true });
      for (let file = 0; file < 100; file += 1) {
        const marker = directory === 57 && file === 42 ? "NEEDLE_FOUND_HERE" : "nothing here";
        writeFileSync(
          path.join(folder, `file-${file}.ts`),
          `// ${directory}/${file}\nexport const value = "${marker}";\n`,
        );
      }
    }
    const listStarted = performance.now();
    const listed = await call("list_files", {});
    const listMs = performance.now() - listStarted;
    const searchStarted = performance.now();
    const found = await call("search", { pattern: "NEEDLE_\\w+" });
    const searchMs = performance.now() - searchStarted;
    console.log(
      `10k-file repo: list_files ${listMs.toFixed(0)} ms, search ${searchMs.toFixed(0)} ms`,
    );
    expect(listed.output).toContain(
      "[output truncated: showed the first 256 of 9001 lines. 9001 files in all",
    );
    expect(found.output).toBe('pkg-57/src/file-42.ts:2: export const value = "NEEDLE_FOUND_HERE";');
  });
});
