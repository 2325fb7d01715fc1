// The layering ARCHITECTURE.md promises, checked over the real import graph: each folder of src/
// imports only the folders below it, and the clients (web/, editors/vscode/) only the agent
// protocol. A new arrow that climbs fails here with the file and the import that made it.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
const sourceRoot = path.join(repositoryRoot, "src");

/** Who may import whom: a folder of src/ and the folders it may import (besides itself). */
const ALLOWED: Record<string, readonly string[]> = {
  protocol: [],
  metrics: [],
  models: ["protocol"],
  engines: ["protocol"],
  gateway: ["engines", "metrics", "protocol"],
  config: ["engines", "gateway", "protocol"],
  router: ["config", "engines", "gateway", "metrics", "protocol"],
  agent: ["config", "engines", "protocol", "router"],
  eval: ["agent", "protocol"],
  host: ["agent", "config", "engines", "models", "protocol", "router"],
  "app-server": ["agent", "config", "gateway", "host", "protocol"],
  tui: ["agent", "app-server", "config", "host", "protocol"],
  cli: [
    ...["agent", "app-server", "config", "engines", "eval", "gateway", "host", "metrics"],
    ...["models", "protocol", "router", "tui"],
  ],
};

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function sourceFiles(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(full);
    return /\.(?:ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

interface ImportArrow {
  file: string;
  target: string;
}

function relativeImports(file: string): ImportArrow[] {
  const text = fs.readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((match) => ({
    file: path.relative(repositoryRoot, file),
    target: path.resolve(path.dirname(file), match[1] as string),
  }));
}

function folderOf(absolute: string): string | undefined {
  const relative = path.relative(sourceRoot, absolute);
  return relative.startsWith("..") ? undefined : relative.split(path.sep)[0];
}

describe("the layering", () => {
  it("has a rule for every folder of src/", () => {
    const folders = fs
      .readdirSync(sourceRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => ALLOWED[folder] === undefined)).toEqual([]);
  });

  it("has no import that climbs", () => {
    const climbs = sourceFiles(sourceRoot).flatMap((file) => {
      const from = folderOf(file) as string;
      return relativeImports(file)
        .map((arrow) => ({ ...arrow, to: folderOf(arrow.target) }))
        .filter(({ to }) => to !== undefined && to !== from && !ALLOWED[from]?.includes(to))
        .map(({ file: source, to }) => `${source} imports src/${to}`);
    });
    expect(climbs).toEqual([]);
  });

  it("keeps the clients on the agent protocol", () => {
    const protocol = path.join(sourceRoot, "protocol");
    const web = path.join(repositoryRoot, "web", "src");
    const clients = [web, path.join(repositoryRoot, "editors", "vscode", "src")];
    // The agent protocol and SparkError; and the browser app's DOM-free state modules (its
    // Markdown parser), which the editor's webview shares rather than copies.
    const shared = [
      path.join(protocol, "agent"),
      path.join(protocol, "spark-error"),
      path.join(web, "state"),
    ];
    const reaches = clients.flatMap((client) =>
      sourceFiles(client).flatMap((file) =>
        relativeImports(file)
          .filter(({ target }) => !target.startsWith(client))
          .filter(({ target }) => !shared.some((allowed) => target.startsWith(allowed)))
          .map(
            ({ file: source, target }) =>
              `${source} imports ${path.relative(repositoryRoot, target)}`,
          ),
      ),
    );
    expect(reaches).toEqual([]);
  });
});
