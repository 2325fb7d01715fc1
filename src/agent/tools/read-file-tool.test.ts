// read_file against real files: numbered ranges, the registry's cap with a continuation note,
// the ledger record that makes later edits stale-safe, and errors worded for the model.
import { afterEach, describe, expect, it } from "vitest";
import {
  createToolWorkspace,
  type ToolWorkspace,
} from "../../../test/agent/support/tool-context.ts";
import { ToolRegistry } from "./tool-registry.ts";

const registry = new ToolRegistry();
let workspace: ToolWorkspace;
afterEach(() => workspace.remove());

async function read(args: Record<string, unknown>) {
  return registry
    .prepare({ id: "c", name: "read_file", arguments: JSON.stringify(args) })
    .run(workspace.context);
}

describe("read_file", () => {
  it("returns a numbered line range and records the whole file in the ledger", async () => {
    workspace = createToolWorkspace();
    workspace.write("src/a.ts", "one\ntwo\nthree\nfour\n");
    const result = await read({ path: "src/a.ts", startLine: 2, endLine: 3 });
    expect(result).toEqual({ output: "2\ttwo\n3\tthree", isError: false, edits: [] });
    expect(workspace.context.ledger.hasRead(`${workspace.root}/src/a.ts`)).toBe(true);
  });

  it("cuts long files at 256 lines and says where to continue", async () => {
    workspace = createToolWorkspace();
    const lines = Array.from({ length: 1000 }, (_, index) => `line ${index + 1}`);
    workspace.write("big.txt", lines.join("\n"));
    const result = await read({ path: "big.txt" });
    const outputLines = result.output.split("\n");
    expect(outputLines[0]).toBe("   1\tline 1");
    expect(outputLines[255]).toBe(" 256\tline 256");
    expect(outputLines.at(-1)).toBe(
      "[output truncated: showed the first 256 of 1000 lines. The file has 1000 lines; call read_file with startLine 257 to read on.]",
    );
    const next = await read({ path: "big.txt", startLine: 257, endLine: 258 });
    expect(next.output).toBe("257\tline 257\n258\tline 258");
  });

  it("explains missing files, directories, bad ranges and paths outside the workspace", async () => {
    workspace = createToolWorkspace();
    workspace.write("src/a.ts", "x\n");
    expect((await read({ path: "nope.ts" })).output).toContain(
      "nope.ts does not exist; use list_files",
    );
    expect((await read({ path: "src" })).output).toContain("is a directory; use list_files");
    expect((await read({ path: "src/a.ts", startLine: 5 })).output).toContain(
      "past the end of src/a.ts, which has 1 lines",
    );
    const outside = await read({ path: "../../etc/passwd" });
    expect(outside.isError).toBe(true);
    expect(outside.output).toContain("outside the workspace");
  });
});
