// Corpus test: hundreds of generated edits of real source files (commander and ws, copied into a
// temp workspace), applied as apply_patch text and as search/replace calls, compared byte for byte.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyPatch } from "../../../src/agent/edits/apply-patch.ts";
import { applySearchReplace } from "../../../src/agent/edits/apply-search-replace.ts";
import { EditError } from "../../../src/agent/edits/edit-error.ts";
import {
  blockOf,
  disjointEdits,
  expectedAfter,
  generateEdits,
  hunkText,
  patchText,
  splitFileLines,
  type LineEdit,
} from "./corpus-edits.ts";
import { createTempWorkspace, type TempWorkspace } from "./temp-workspace.ts";

const nodeModules = fileURLToPath(new URL("../../../node_modules/", import.meta.url));

interface SourceFile {
  relativePath: string;
  text: string;
  edits: LineEdit[];
}

function loadSources(): SourceFile[] {
  const sources: SourceFile[] = [];
  for (const packageName of ["commander", "ws"]) {
    const folder = path.join(nodeModules, packageName, "lib");
    for (const name of readdirSync(folder)
      .filter((entry) => entry.endsWith(".js"))
      .sort()) {
      const text = readFileSync(path.join(folder, name), "utf8");
      const relativePath = `${packageName}/lib/${name}`;
      sources.push({ relativePath, text, edits: generateEdits(text, sources.length + 1, 5) });
    }
  }
  return sources;
}

let workspace: TempWorkspace;
const sources = loadSources();

beforeAll(() => {
  workspace = createTempWorkspace("spark-corpus-", { memoryBacked: true });
});

afterAll(() => {
  workspace.remove();
});

/** Puts the pristine file back and records it as read, as the read_file tool would. */
function reset(source: SourceFile): void {
  workspace.write(source.relativePath, source.text);
  workspace.ledger.recordRead(source.relativePath, source.text);
}

function runPatch(text: string) {
  return applyPatch({
    workspaceRoot: workspace.root,
    patchText: text,
    ledger: workspace.ledger,
    undoStack: workspace.undoStack,
  });
}

function runSearchReplace(relativePath: string, oldText: string, newText: string) {
  return applySearchReplace({
    workspaceRoot: workspace.root,
    path: relativePath,
    oldText,
    newText,
    ledger: workspace.ledger,
    undoStack: workspace.undoStack,
  });
}

async function undoAndExpectOriginal(source: SourceFile): Promise<void> {
  await workspace.undoStack.undo({ workspaceRoot: workspace.root, ledger: workspace.ledger });
  expect(workspace.read(source.relativePath)).toBe(source.text);
}

async function editErrorOf(promise: Promise<unknown>): Promise<EditError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EditError) return error;
    throw error;
  }
  throw new Error("expected an EditError");
}

function countBlocks(
  lines: readonly string[],
  block: readonly string[],
  normalize: (line: string) => string,
) {
  const wanted = block.map(normalize);
  let count = 0;
  for (let start = 0; start + wanted.length <= lines.length; start += 1) {
    if (wanted.every((line, offset) => normalize(lines[start + offset] ?? "") === line)) count += 1;
  }
  return count;
}

describe("real patch corpus", () => {
  it("generates hundreds of edits across every source file", () => {
    expect(sources.length).toBe(19);
    expect(sources.reduce((total, source) => total + source.edits.length, 0)).toBeGreaterThan(250);
  });

  it("applies every single-hunk apply_patch exactly, and undo restores the file", async () => {
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      for (const edit of source.edits) {
        reset(source);
        const result = await runPatch(patchText(source.relativePath, [hunkText(lines, edit)]));
        expect(
          workspace.read(source.relativePath),
          `${source.relativePath} ${edit.kind}@${edit.start}`,
        ).toBe(expectedAfter(source.text, [edit]));
        expect(result.files[0]?.rungs).toEqual(["exact"]);
        expect([result.linesAdded, result.linesRemoved]).toEqual([
          edit.insert.length,
          edit.deleteCount,
        ]);
        await undoAndExpectOriginal(source);
      }
    }
  });

  it("applies the same edits as search/replace calls exactly", async () => {
    let applied = 0;
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      // Every other edit: the same engine underneath, so half of them is plenty and stays quick.
      for (const edit of source.edits.filter((_, index) => index % 2 === 1)) {
        reset(source);
        const { oldLines, newLines } = blockOf(lines, edit);
        const result = await runSearchReplace(
          source.relativePath,
          oldLines.join("\n"),
          newLines.join("\n"),
        );
        expect(
          workspace.read(source.relativePath),
          `${source.relativePath} ${edit.kind}@${edit.start}`,
        ).toBe(expectedAfter(source.text, [edit]));
        expect(result.rung).toBe("exact");
        applied += 1;
      }
    }
    expect(applied).toBeGreaterThan(120);
  });

  it("applies several hunks per file in one patch, in order", async () => {
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      const edits = disjointEdits(lines, source.edits, 6);
      if (edits.length < 2) continue;
      reset(source);
      const result = await runPatch(
        patchText(
          source.relativePath,
          edits.map((edit) => hunkText(lines, edit)),
        ),
      );
      expect(workspace.read(source.relativePath)).toBe(expectedAfter(source.text, edits));
      expect(result.files[0]?.rungs).toHaveLength(edits.length);
      await undoAndExpectOriginal(source);
    }
  });

  it("applies mis-indented and trailing-blank variants through the fuzzy rungs", async () => {
    let applied = 0;
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      // Every other edit keeps the test quick; the variants still number in the hundreds.
      for (const edit of source.edits.filter((_, index) => index % 2 === 0)) {
        const { oldLines } = blockOf(lines, edit);
        const base = /^\s*/.exec(oldLines.find((line) => line.trim().length > 0) ?? "")?.[0] ?? "";
        const dedentable =
          base.length > 0 &&
          [...oldLines, ...edit.insert].every(
            (line) => line.trim().length === 0 || line.startsWith(base),
          );
        const collapse = (line: string) => line.trim().replace(/\s+/g, " ");
        if (dedentable && countBlocks(lines, oldLines, collapse) === 1) {
          reset(source);
          const dedent = (line: string) => (line.startsWith(base) ? line.slice(base.length) : line);
          const result = await runPatch(
            patchText(source.relativePath, [
              hunkText(lines, edit, { oldSide: dedent, added: dedent }),
            ]),
          );
          expect(result.files[0]?.rungs).toEqual(["whitespace"]);
          expect(workspace.read(source.relativePath)).toBe(expectedAfter(source.text, [edit]));
          applied += 1;
        }
        if (countBlocks(lines, oldLines, (line) => line.trimEnd()) === 1) {
          reset(source);
          const result = await runPatch(
            patchText(source.relativePath, [
              hunkText(lines, edit, { oldSide: (line) => `${line}  ` }),
            ]),
          );
          expect(result.files[0]?.rungs).toEqual(["trailing-whitespace"]);
          expect(workspace.read(source.relativePath)).toBe(expectedAfter(source.text, [edit]));
          applied += 1;
        }
      }
    }
    expect(applied).toBeGreaterThan(100);
  });

  it("moves, adds and deletes whole files, and undo puts them back", async () => {
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      const edit = source.edits[0];
      if (edit === undefined) continue;
      reset(source);
      const moved = `moved/${source.relativePath}`;
      const result = await runPatch(patchText(source.relativePath, [hunkText(lines, edit)], moved));
      expect(result.files.map((file) => [file.kind, file.path, file.movedFrom])).toEqual([
        ["move", moved, source.relativePath],
      ]);
      expect(workspace.read(moved)).toBe(expectedAfter(source.text, [edit]));
      expect(existsSync(path.join(workspace.root, source.relativePath))).toBe(false);
      await undoAndExpectOriginal(source);
      expect(existsSync(path.join(workspace.root, moved))).toBe(false);

      const copy = `copies/${source.relativePath}`;
      await runPatch(
        [
          "*** Begin Patch",
          `*** Add File: ${copy}`,
          ...lines.map((line) => `+${line}`),
          `*** Delete File: ${source.relativePath}`,
          "*** End Patch",
        ].join("\n"),
      );
      expect(workspace.read(copy)).toBe(source.text);
      expect(existsSync(path.join(workspace.root, source.relativePath))).toBe(false);
      await undoAndExpectOriginal(source);
      expect(existsSync(path.join(workspace.root, copy))).toBe(false);
    }
  });

  it("refuses context that occurs more than once as ambiguous_match, writing nothing", async () => {
    let refused = 0;
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      const seen = new Set<string>();
      for (let index = 0; index + 1 < lines.length && seen.size < 3; index += 1) {
        const block = [lines[index] ?? "", lines[index + 1] ?? ""];
        const key = block.join("\n");
        if (block.some((line) => line.trim().length === 0) || seen.has(key)) continue;
        if (countBlocks(lines, block, (line) => line) < 2) continue;
        seen.add(key);
        reset(source);
        const undoDepth = workspace.undoStack.size;
        const hunk = ["@@", `-${block[0]}`, `+${block[0]} // changed`, ` ${block[1]}`];
        const patchError = await editErrorOf(runPatch(patchText(source.relativePath, [hunk])));
        expect(patchError.editCode).toBe("ambiguous_match");
        expect(patchError.message).toMatch(/match \d+ places \(lines \d+, \d+/);
        const replaceError = await editErrorOf(
          runSearchReplace(source.relativePath, key, `${block[0]} // changed\n${block[1]}`),
        );
        expect(replaceError.editCode).toBe("ambiguous_match");
        expect(replaceError.message).toContain("include more surrounding lines");
        expect(workspace.read(source.relativePath)).toBe(source.text);
        expect(workspace.undoStack.size).toBe(undoDepth);
        refused += 2;
      }
    }
    expect(refused).toBeGreaterThan(40);
  });

  it("refuses files modified after they were read as stale_file, writing nothing", async () => {
    for (const source of sources) {
      const lines = splitFileLines(source.text);
      const edit = source.edits[0];
      if (edit === undefined) continue;
      reset(source);
      const touched = `${source.text}// touched by someone else\n`;
      workspace.write(source.relativePath, touched);
      const patchError = await editErrorOf(
        runPatch(patchText(source.relativePath, [hunkText(lines, edit)])),
      );
      expect(patchError.editCode).toBe("stale_file");
      expect(patchError.message).toBe(
        `${source.relativePath} changed on disk since you read it; read it again before editing`,
      );
      const { oldLines, newLines } = blockOf(lines, edit);
      const replaceError = await editErrorOf(
        runSearchReplace(source.relativePath, oldLines.join("\n"), newLines.join("\n")),
      );
      expect(replaceError.editCode).toBe("stale_file");
      expect(workspace.read(source.relativePath)).toBe(touched);
    }
  });
});
