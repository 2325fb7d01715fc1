// `npm run build:cli`: bundles the CLI (src/cli/main.ts, every Spark file it can load and the
// pure-JavaScript packages they import) into dist/cli/, which bin/spark.js runs instead of the
// TypeScript through tsx while it is current. Each lazy `import()` stays a chunk of its own, so a
// command still loads only what it needs (no Ink for `spark exec`, no Redis client for one serve).
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Metafile, type OutputFile, type Plugin } from "esbuild";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** bin/cli-bundle.js reads the same folder and entry name. */
export const BUNDLE_DIRECTORY = path.join(ROOT, "dist", "cli");
const ENTRY_NAME = "spark";
const ENTRY_PATH = path.join(BUNDLE_DIRECTORY, `${ENTRY_NAME}.mjs`);
const SOURCE_DIRECTORY = path.join(ROOT, "src");
/**
 * esbuild's metafile for the last build: which chunk holds which source and package. Beside
 * dist/cli/, not in it, so the package (which ships dist/cli/) leaves it out; the bundle test reads
 * it to tell which packages a process loaded from the chunks it loaded.
 */
const BUNDLE_METAFILE = path.join(ROOT, "dist", "cli-meta.json");

/**
 * Packages that stay packages, imported from node_modules at run time; every other one is compiled
 * into the chunks, which saves each start resolving, reading and compiling hundreds of small
 * modules (zod, the MCP SDK, ioredis, ...: a scripted `spark exec` took 0.47 s of CPU, 0.30 s
 * bundled; a `spark serve` start 0.42 s, 0.27 s). node-llama-cpp: a native addon that finds its
 * binaries and llama.cpp's files beside its own. ink: with DEV=true ink reads its package.json
 * beside itself and imports react-devtools-core (not installed). react: ink's and the JSX runtime of Spark's .tsx files must be one instance for
 * hooks to work. Their subpaths (react/jsx-runtime) stay external too.
 */
const EXTERNAL_PACKAGES = ["node-llama-cpp", "ink", "react"];

/**
 * CommonJS packages compiled into an ESM chunk call `require` for Node's builtins (ioredis's
 * `require("net")`); esbuild's shim throws unless a `require` is in scope, so each chunk makes one.
 */
const REQUIRE_FOR_COMMONJS = `import { createRequire as __sparkCreateRequire } from "node:module";
const require = __sparkCreateRequire(import.meta.url);`;

/**
 * Each Spark file's `import.meta.url` stays that file's own URL: eight files find the browser app,
 * prompts/, the eval tasks, package.json or their addons relative to themselves, and in the bundle
 * `import.meta.url` is the chunk's. Every output file sits in BUNDLE_DIRECTORY, so one relative
 * path from there serves whichever chunk the file lands in.
 */
const ownImportMetaUrl: Plugin = {
  name: "own-import-meta-url",
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, async (arguments_) => {
      if (!arguments_.path.startsWith(SOURCE_DIRECTORY + path.sep)) return undefined;
      const source = await readFile(arguments_.path, "utf8");
      const loader = arguments_.path.endsWith("x") ? "tsx" : "ts";
      if (!source.includes("import.meta.url")) return { contents: source, loader };
      const relative = path.relative(BUNDLE_DIRECTORY, arguments_.path).split(path.sep).join("/");
      const ownUrl = `new URL(${JSON.stringify(relative)}, import.meta.url).href`;
      return { contents: source.replace(/\bimport\.meta\.url\b/g, ownUrl), loader };
    });
  },
};

/**
 * A CommonJS file compiled into a chunk has no `__dirname` or `__filename` of its own (a chunk is
 * ESM): ioredis reads its package.json by `__dirname` for the version it tells Redis, undici keeps
 * its `__filename` for stack traces. Each file that uses them gets its own path back, resolved at
 * run time from the chunk as Node would resolve it (node_modules moves when the package is
 * installed), or undefined where the package's exports hide the file (as in a bundle).
 */
const ownCommonJsPaths: Plugin = {
  name: "own-commonjs-paths",
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (arguments_) => {
      const source = await readFile(arguments_.path, "utf8");
      const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, "");
      if (!/\b__(?:dirname|filename)\b/.test(code)) return undefined;
      const specifier = /.*[\\/]node_modules[\\/](.*)$/.exec(arguments_.path)?.[1] ?? "";
      const resolved = JSON.stringify(specifier.split(path.sep).join("/"));
      const paths = `var __filename = (() => { try { return require.resolve(${resolved}); } catch { return undefined; } })();
var __dirname = __filename === undefined ? undefined : require("node:path").dirname(__filename);\n`;
      return { contents: paths + source, loader: "js" };
    });
  },
};

/** Builds into memory; nothing on disk changes when the build fails. */
async function bundle(): Promise<{ outputs: OutputFile[]; metafile: Metafile }> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { [ENTRY_NAME]: "src/cli/main.ts" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir: BUNDLE_DIRECTORY,
    outExtension: { ".js": ".mjs" },
    entryNames: "[name]",
    // Beside the entry, not in a subfolder: ownImportMetaUrl's paths are relative to this folder.
    chunkNames: "chunk-[hash]",
    external: EXTERNAL_PACKAGES,
    banner: { js: REQUIRE_FOR_COMMONJS },
    // The packages' license comments are kept as esbuild keeps them in a bundle (default "eof"):
    // gathered at the end of each chunk that holds their code.
    metafile: true,
    tsconfig: path.join(ROOT, "tsconfig.json"),
    // `NODE_OPTIONS=--enable-source-maps` maps stack traces to src/ (which ships beside it).
    sourcemap: "linked",
    sourcesContent: false,
    plugins: [ownImportMetaUrl, ownCommonJsPaths],
    write: false,
    logLevel: "warning",
  });
  return { outputs: result.outputFiles, metafile: result.metafile };
}

/**
 * Writes the chunks, then the entry last, each through a rename: a `spark` starting meanwhile runs
 * either the old entry or the new one, whole. The entry's time is set to when the build started,
 * so a source saved while esbuild was reading it counts as newer than the bundle.
 */
async function writeBundle(outputs: OutputFile[], startedAt: Date): Promise<void> {
  await mkdir(BUNDLE_DIRECTORY, { recursive: true });
  const ordered = [...outputs].sort(
    (first, second) => Number(first.path === ENTRY_PATH) - Number(second.path === ENTRY_PATH),
  );
  for (const output of ordered) {
    const temporary = `${output.path}.${process.pid}.tmp`;
    await writeFile(temporary, output.contents);
    await rename(temporary, output.path);
  }
  await utimes(ENTRY_PATH, startedAt, startedAt);
}

/**
 * Removes the files of earlier builds, except the previous build's (written since its entry's
 * time) unless `clean`: a `spark serve` or terminal UI started from that build still imports its
 * lazy chunks (an engine, a command) by their old names.
 */
async function removeEarlierBuilds(
  outputs: OutputFile[],
  previousBuildAt: number | undefined,
  clean: boolean,
): Promise<void> {
  const written = new Set(outputs.map((output) => path.basename(output.path)));
  for (const name of await readdir(BUNDLE_DIRECTORY)) {
    if (written.has(name)) continue;
    const file = path.join(BUNDLE_DIRECTORY, name);
    const modifiedAt = (await stat(file)).mtimeMs;
    // Another build's file in the middle of being written.
    if (name.endsWith(".tmp") && Date.now() - modifiedAt < 60_000) continue;
    if (clean || previousBuildAt === undefined || modifiedAt < previousBuildAt)
      await rm(file, { force: true });
  }
}

/** Builds the bundle; returns the entry's path. `clean`: no earlier build's files are kept. */
export async function buildCli(options: { clean?: boolean } = {}): Promise<string> {
  const startedAt = new Date();
  const previousBuildAt = await stat(ENTRY_PATH).then(
    (stats) => stats.mtimeMs,
    () => undefined,
  );
  const { outputs, metafile } = await bundle();
  await writeBundle(outputs, startedAt);
  await writeFile(BUNDLE_METAFILE, JSON.stringify(metafile));
  await removeEarlierBuilds(outputs, previousBuildAt, options.clean === true);
  return ENTRY_PATH;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const startedAt = performance.now();
  const entry = await buildCli({ clean: process.argv.includes("--clean") });
  const milliseconds = (performance.now() - startedAt).toFixed(0);
  process.stdout.write(`build:cli: ${path.relative(ROOT, entry)} (${milliseconds} ms)\n`);
}
