// What `npm pack` would publish: everything `spark` loads at run time (the import graph from the
// bin entry and from the postinstall script, plus the files read by path), the CLI bundle and its
// chunks, every package those files import listed as a dependency (not a devDependency), and no
// tests, benchmarks or docs.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { BUNDLE_ENTRY } from "../../bin/cli-bundle.js";
import { buildCli } from "../../scripts/build-cli.ts";
import { runtimeImportGraph } from "./support/runtime-import-graph.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const packageJson = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  bin: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The script postinstall runs: `tsx scripts/….ts || exit 0`. */
const postinstallScript = /tsx (\S+\.ts)/.exec(packageJson.scripts.postinstall ?? "")?.[1];

let packed: Set<string>;

beforeAll(async () => {
  // `npm install` builds it (prepare); a checkout that never ran it has none to list.
  if (!existsSync(BUNDLE_ENTRY)) await buildCli();
  // --ignore-scripts: `prepare` would rebuild the browser app; the list is what matters here.
  const { stdout } = await promisify(execFile)(
    "npm",
    ["pack", "--dry-run", "--json", "--ignore-scripts"],
    { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  const [report] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  packed = new Set(report?.files.map((file) => file.path));
});

/** Every file under `directory` (relative to the root), leaving out folders named in `skip`. */
function filesUnder(directory: string, skip: string[] = []): string[] {
  return readdirSync(path.join(ROOT, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
    .map((file) => file.split(path.sep).join("/"))
    .filter((file) => !skip.some((folder) => file.split("/").includes(folder)));
}

function missingFromPackage(files: Iterable<string>): string[] {
  return [...files].filter((file) => !packed.has(file)).sort();
}

describe("the npm package", () => {
  it("holds every file the CLI and the postinstall script import", () => {
    expect(postinstallScript).toBeDefined();
    const entries = [...Object.values(packageJson.bin), postinstallScript ?? ""];
    const graph = runtimeImportGraph(ROOT, entries);
    expect(graph.files.size).toBeGreaterThan(100);
    expect(missingFromPackage(graph.files)).toEqual([]);
  });

  it("holds the CLI bundle, its chunks and source maps: installed, spark starts without tsx", () => {
    const graph = runtimeImportGraph(ROOT, [BUNDLE_ENTRY]);
    // The entry and the chunks of its lazy commands (exec, serve, the terminal UI, ...).
    expect(graph.files.size).toBeGreaterThan(10);
    const maps = [...graph.files].map((file) => `${file}.map`);
    expect(missingFromPackage([...graph.files, ...maps])).toEqual([]);
    const missing = [...graph.packages].filter(
      (name) => packageJson.dependencies[name] === undefined,
    );
    expect(missing).toEqual([]);
    // Its absence tells bin/cli-bundle.js it runs from an installed package, whose files' times
    // are when npm unpacked them: shipped, every user would start through tsx.
    expect(packed.has("scripts/build-cli.ts")).toBe(false);
  });

  it("holds the files the code reads by path: tsconfig, prompts, eval tasks, the addon's sources, the browser app", () => {
    const readByPath = [
      // bin/spark.js hands it to tsx: the terminal UI's TSX needs its jsx setting.
      "tsconfig.json",
      "prompts/system.md",
      "web/dist/index.html",
      "native/generation-loop/binding.gyp",
      ...filesUnder("native/generation-loop/src"),
      ...filesUnder("evals/tasks", ["solution"]),
    ];
    expect(missingFromPackage(readByPath)).toEqual([]);
    // The browser app's own files (hashed names) come with its index.html.
    expect(
      [...packed].filter((file) => file.startsWith("web/dist/assets/")).length,
    ).toBeGreaterThan(0);
  });

  it("lists every package imported at run time, tsx included, as a dependency", () => {
    const graph = runtimeImportGraph(ROOT, [
      ...Object.values(packageJson.bin),
      postinstallScript ?? "",
    ]);
    // tsx runs the CLI (bin/spark.js registers it) and the postinstall script; react's JSX
    // runtime is imported by every compiled .tsx file.
    const needed = new Set([...graph.packages, "tsx", "react"]);
    const missing = [...needed].filter((name) => packageJson.dependencies[name] === undefined);
    expect(missing).toEqual([]);
  });

  it("leaves out tests, test support, benchmarks, docs and build outputs", () => {
    const devOnly = [...packed].filter(
      (file) =>
        /(^|\/)(test|bench|docs|editors|__snapshots__|solution|build)\//.test(file) ||
        /\.test\.tsx?$/.test(file) ||
        // Test support kept beside the code it helps test: config-test-directories.ts, ….
        /(^|\/|-)tests?(-|\.)/.test(file) ||
        file.startsWith("native/generation-loop/llama-headers/") ||
        file.endsWith(".gguf") ||
        ["vitest.config.ts", "eslint.config.js", "web/tsconfig.json", "web/index.html"].includes(
          file,
        ) ||
        file.startsWith("web/src/") ||
        file === "scripts/make-test-model.ts",
    );
    expect(devOnly).toEqual([]);
  });
});
