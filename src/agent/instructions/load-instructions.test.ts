// Instructions: the system prompt file plus AGENTS.md from the repository root down to the
// working directory, root first, within the size cap.
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgentsFiles, loadInstructions } from "./load-instructions.ts";

function repository(): string {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "spark-instructions-")));
  const root = path.join(base, "repo");
  mkdirSync(path.join(root, ".git"), { recursive: true });
  mkdirSync(path.join(root, "packages", "core"), { recursive: true });
  writeFileSync(path.join(root, "AGENTS.md"), "Use pnpm.\n");
  writeFileSync(path.join(root, "packages", "core", "AGENTS.md"), "Core is strict TypeScript.\n");
  // Above the repository: must not be read.
  writeFileSync(path.join(base, "AGENTS.md"), "OUTSIDE\n");
  return root;
}

describe("loadInstructions", () => {
  it("joins the working style and AGENTS.md files from the root down", async () => {
    const root = repository();
    const text = await loadInstructions({ cwd: path.join(root, "packages", "core") });
    expect(text).toContain("Never rewrite a whole file unless the user asked for it.");
    const rootIndex = text.indexOf("## Project instructions from AGENTS.md\n\nUse pnpm.");
    const nestedIndex = text.indexOf(
      "## Project instructions from packages/core/AGENTS.md\n\nCore is strict TypeScript.",
    );
    expect(rootIndex).toBeGreaterThan(0);
    expect(nestedIndex).toBeGreaterThan(rootIndex);
    expect(text).not.toContain("OUTSIDE");
  });

  it("caps the AGENTS.md text", async () => {
    const root = repository();
    writeFileSync(path.join(root, "AGENTS.md"), "z".repeat(5000));
    const text = await loadAgentsFiles(path.join(root, "packages", "core"), 1000);
    expect(text).toContain("[AGENTS.md truncated: project instructions are capped at 1000 bytes]");
    expect(text).not.toContain("Core is strict");
  });
});
