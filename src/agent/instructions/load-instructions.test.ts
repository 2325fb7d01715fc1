// Instructions: the system prompt file plus AGENTS.md from the repository root down to the
// working directory, root first, within the size cap; never an AGENTS.md that links outside or
// has other hard links (issue 22).
import { linkSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { temporaryDirectory } from "../temporary-directory-test-support.ts";
import { loadAgentsFiles, loadInstructions } from "./load-instructions.ts";

function repository(): string {
  const base = realpathSync(temporaryDirectory("spark-instructions-"));
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

describe("loadAgentsFiles refuses files that lead outside", () => {
  /** The repository plus a secret beside it, outside both the repository and the working folder. */
  function withSecret(): { root: string; secret: string } {
    const root = repository();
    const secret = path.join(path.dirname(root), "secret.txt");
    writeFileSync(secret, "SECRET-TOKEN=hunter2\n");
    return { root, secret };
  }

  it("skips the working folder's AGENTS.md linked outside it, naming why, not its content", async () => {
    const { root, secret } = withSecret();
    const cwd = path.join(root, "packages", "core");
    rmSync(path.join(cwd, "AGENTS.md"));
    symlinkSync(secret, path.join(cwd, "AGENTS.md"));
    const text = await loadAgentsFiles(cwd, 10_000);
    expect(text).not.toContain("hunter2");
    expect(text).toContain("Use pnpm.");
    expect(text).toContain(
      `[packages/core/AGENTS.md skipped: it is a symbolic link (or inside one) whose real path is outside ${cwd}`,
    );
  });

  it("skips a working folder's AGENTS.md linked elsewhere in the repository, outside the workspace", async () => {
    const { root } = withSecret();
    const cwd = path.join(root, "packages", "core");
    writeFileSync(path.join(root, "private.md"), "REPOSITORY-PRIVATE\n");
    rmSync(path.join(cwd, "AGENTS.md"));
    symlinkSync("../../private.md", path.join(cwd, "AGENTS.md"));
    const text = await loadAgentsFiles(cwd, 10_000);
    expect(text).not.toContain("REPOSITORY-PRIVATE");
    expect(text).toContain("packages/core/AGENTS.md skipped");
  });

  it("skips the repository root's AGENTS.md linked outside the repository, reads one linked inside", async () => {
    const { root, secret } = withSecret();
    rmSync(path.join(root, "AGENTS.md"));
    symlinkSync(secret, path.join(root, "AGENTS.md"));
    writeFileSync(path.join(root, "docs.md"), "Inside the repository.\n");
    symlinkSync("../docs.md", path.join(root, "packages", "AGENTS.md"));
    const text = await loadAgentsFiles(path.join(root, "packages", "core"), 10_000);
    expect(text).not.toContain("hunter2");
    expect(text).toContain("[AGENTS.md skipped: it is a symbolic link");
    expect(text).toContain(
      "## Project instructions from packages/AGENTS.md\n\nInside the repository.",
    );
    expect(text).toContain("Core is strict TypeScript.");
  });

  it("reads the repository root's regular AGENTS.md above the working folder", async () => {
    const root = repository();
    const text = await loadAgentsFiles(path.join(root, "packages", "core"), 10_000);
    expect(text).toContain("## Project instructions from AGENTS.md\n\nUse pnpm.");
  });

  it("skips an AGENTS.md with another hard link, which could be a name outside", async () => {
    const { root, secret } = withSecret();
    const cwd = path.join(root, "packages", "core");
    rmSync(path.join(cwd, "AGENTS.md"));
    linkSync(secret, path.join(cwd, "AGENTS.md"));
    const text = await loadInstructions({ cwd });
    expect(text).not.toContain("hunter2");
    expect(text).toContain(
      "[packages/core/AGENTS.md skipped: it has 2 hard links; Spark cannot tell whether its other names are outside the workspace, so it does not read it",
    );
  });
});
