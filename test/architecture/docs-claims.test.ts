// What the documents claim about the code, checked where a machine can check it: every source
// file a document names exists where it says, the import table in ARCHITECTURE.md is the one the
// layering test enforces, and the surfaces import what docs/internals/surfaces.md says they do.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALLOWED_IMPORTS, relativeImports, sourceFiles } from "./import-graph.ts";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Named in the documents but not ours: files of llama.cpp and undici the text points into. */
const OUTSIDE_FILES = new Set(["tests/test-chat.cpp", "undici/lib/util/timers.js"]);

function documents(): string[] {
  const pages = (folder: string): string[] =>
    fs
      .readdirSync(path.join(repositoryRoot, folder))
      .filter((name) => name.endsWith(".md"))
      .map((name) => path.join(folder, name));
  return ["README.md", "ARCHITECTURE.md", "SECURITY.md", "AGENTS.md"]
    .concat(pages("docs"), pages("docs/internals"))
    .filter((file) => fs.existsSync(path.join(repositoryRoot, file)));
}

function repositoryFiles(directory = repositoryRoot): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".") || ["node_modules", "dist", "build"].includes(entry.name)) {
      return [];
    }
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? repositoryFiles(full) : [path.relative(repositoryRoot, full)];
  });
}

/** Code files a document names in backticks: `src/gateway/auth.ts`, `tools/tool-registry.ts`. */
function namedCodeFiles(markdown: string): string[] {
  return [...markdown.matchAll(/`([\w@./-]+\.(?:ts|tsx|cpp|h|mjs|js|jinja|sh))`/g)]
    .map((match) => match[1] as string)
    .filter((name) => !/^[~./]/.test(name) && !name.startsWith("foo."))
    .filter((name) => !OUTSIDE_FILES.has(name));
}

describe("the documents' claims", () => {
  it("name only source files that exist where they say", () => {
    const files = repositoryFiles();
    const baseNames = new Set(files.map((file) => path.basename(file)));
    const missing = documents().flatMap((document) =>
      namedCodeFiles(fs.readFileSync(path.join(repositoryRoot, document), "utf8"))
        .filter((name) =>
          name.includes("/")
            ? !files.some((file) => file === name || file.endsWith(`/${name}`))
            : !baseNames.has(name),
        )
        .map((name) => `${document} names ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("show the import table the layering test enforces", () => {
    const text = fs.readFileSync(path.join(repositoryRoot, "ARCHITECTURE.md"), "utf8");
    const rows = [...text.matchAll(/^\| `([\w-]+)`\s*\| ([^|]+)\|$/gm)];
    const documented = Object.fromEntries(rows.map((row) => [row[1] as string, row[2] as string]));
    const mismatches = Object.entries(ALLOWED_IMPORTS).flatMap(([folder, allowed]) => {
      const cell = documented[folder];
      if (cell === undefined) return [`ARCHITECTURE.md has no row for ${folder}`];
      if (cell.trim() === "everything above") return [];
      const named = new Set(cell.split(",").map((part) => part.trim().split(" ")[0]));
      named.delete("nothing");
      const expected = new Set(allowed);
      return [...expected].some((name) => !named.has(name)) ||
        [...named].some((name) => !expected.has(name as string))
        ? [
            `${folder}: ARCHITECTURE.md says "${cell.trim()}", the test allows ${allowed.join(", ")}`,
          ]
        : [];
    });
    expect(mismatches).toEqual([]);
  });

  it("keep the terminal UI on the agent protocol outside its launcher", () => {
    // surfaces.md: the TUI's screens talk to the agent only through the protocol client; only the
    // launcher (run-tui.tsx, connect-agent.ts) composes an in-process app server.
    const tui = path.join(repositoryRoot, "src", "tui");
    const launcher = new Set(
      ["run-tui.tsx", "connect-agent.ts"].map((name) => path.join(tui, name)),
    );
    const protocol = path.join(repositoryRoot, "src", "protocol");
    const reaches = sourceFiles(tui)
      .filter((file) => !launcher.has(file))
      .flatMap((file) => relativeImports(file))
      .filter(({ target }) => !target.startsWith(tui) && !target.startsWith(protocol))
      .map(({ file, target }) => `${file} imports ${path.relative(repositoryRoot, target)}`);
    expect(reaches).toEqual([]);
  });

  it("draw spark prompt straight to the router, not through the agent", () => {
    // The command's registration and the action it loads when it runs.
    const prompt = ["commands/prompt-command.ts", "actions/prompt-action.ts"].map((file) =>
      path.join(repositoryRoot, "src", "cli", file),
    );
    const agent = path.join(repositoryRoot, "src", "agent");
    const reaches = prompt.flatMap((file) => relativeImports(file));
    expect(reaches.filter(({ target }) => target.startsWith(agent))).toEqual([]);
  });
});
