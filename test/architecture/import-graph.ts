// The import graph of src/ as the architecture tests read it: relative imports of each source file,
// who may import whom (ARCHITECTURE.md's table), and the import circles (Tarjan).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repositoryRoot = fileURLToPath(new URL("../..", import.meta.url));
export const sourceRoot = path.join(repositoryRoot, "src");

/** Who may import whom: a folder of src/ and the folders it may import (besides itself). */
export const ALLOWED_IMPORTS: Record<string, readonly string[]> = {
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

export function sourceFiles(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(full);
    return /\.(?:ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

export interface ImportArrow {
  file: string;
  target: string;
}

export function relativeImports(file: string): ImportArrow[] {
  const text = fs.readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((match) => ({
    file: path.relative(repositoryRoot, file),
    target: path.resolve(path.dirname(file), match[1] as string),
  }));
}

/** The file an import names: the path as written, or its .ts/.tsx twin for a `.js` specifier. */
function resolveImport(target: string): string | undefined {
  const candidates = [target, target.replace(/\.js$/, ".ts"), target.replace(/\.js$/, ".tsx")];
  return candidates.find(
    (candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile(),
  );
}

/** The import circles among `files` (strongly connected components of two or more files, Tarjan),
 * each as its files relative to src/, sorted. */
export function importCircles(files: readonly string[]): string[][] {
  const graph = new Map(
    files.map((file) => [
      file,
      relativeImports(file)
        .map(({ target }) => resolveImport(target))
        .filter((target): target is string => target !== undefined),
    ]),
  );
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    lowest.set(file, order.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!order.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, order.get(target) as number));
      }
    }
    if (lowest.get(file) !== order.get(file)) return;
    const circle: string[] = [];
    for (;;) {
      const member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      circle.push(path.relative(sourceRoot, member));
      if (member === file) break;
    }
    if (circle.length > 1) circles.push(circle.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return circles;
}

export function folderOf(absolute: string): string | undefined {
  const relative = path.relative(sourceRoot, absolute);
  return relative.startsWith("..") ? undefined : relative.split(path.sep)[0];
}
