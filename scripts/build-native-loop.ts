// Run at `npm install`: builds Spark's native generation loop (native/generation-loop, an N-API
// addon) against the llama.cpp libraries node-llama-cpp installed. It never fails the install:
// when it cannot build, it says why and Spark uses node-llama-cpp's own loop.
// SPARK_NATIVE_LOOP=0 skips the build; `--strict` (npm run build:native) exits 1 when it fails.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  extractLlamaHeaders,
  findLlamaBinaries,
  llamaLinkLibraries,
} from "./native/llama-build-inputs.ts";

const run = promisify(execFile);
const addonDirectory = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../native/generation-loop",
);
export const addonFile = join(addonDirectory, "build", "Release", "spark_generation_loop.node");

/** npm sets npm_config_node_gyp in lifecycle scripts; otherwise use the node-gyp npm bundles. */
function nodeGypScript(): string {
  const fromNpm = process.env.npm_config_node_gyp;
  if (fromNpm !== undefined && fromNpm !== "" && existsSync(fromNpm)) return fromNpm;
  const candidates = [
    join(
      dirname(process.execPath),
      "../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js",
    ),
    join(dirname(process.execPath), "node_modules/npm/node_modules/node-gyp/bin/node-gyp.js"),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error("node-gyp was not found (it ships with npm)");
  return found;
}

/**
 * Node's own headers when they are installed beside it (/usr/include/node for /usr/bin/node), so
 * node-gyp needs no download; otherwise node-gyp fetches them (or uses npm's nodedir setting).
 */
function nodeHeaders(): string[] {
  const configured = process.env.npm_config_nodedir;
  if (configured !== undefined && configured !== "") return [];
  const prefix = resolve(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include", "node", "node_api.h")) ? [`--nodedir=${prefix}`] : [];
}

/** Builds the addon and checks that it loads; returns the addon's path. */
export async function buildNativeLoop(): Promise<string> {
  const binaries = await findLlamaBinaries();
  const includes = await extractLlamaHeaders(join(addonDirectory, "llama-headers"));
  const inputs = {
    variables: {
      llama_include_dirs: includes,
      llama_libraries: llamaLinkLibraries(binaries),
      llama_binaries: binaries.directory,
    },
  };
  await writeFile(join(addonDirectory, "build-inputs.gypi"), JSON.stringify(inputs, null, 2));
  await run(process.execPath, [nodeGypScript(), "rebuild", "--silent", ...nodeHeaders()], {
    cwd: addonDirectory,
    maxBuffer: 16 * 1024 * 1024,
  });
  // Load it in a child process: a library that does not resolve must fail here, not in Spark.
  await run(process.execPath, ["-e", `require(${JSON.stringify(addonFile)})`]);
  return addonFile;
}

async function main(): Promise<void> {
  if (process.env.SPARK_NATIVE_LOOP === "0") {
    console.log("spark: SPARK_NATIVE_LOOP=0, native generation loop not built");
    return;
  }
  try {
    const started = Date.now();
    const built = await buildNativeLoop();
    console.log(`spark: native generation loop built in ${Date.now() - started} ms (${built})`);
  } catch (error) {
    await rm(join(addonDirectory, "build"), { recursive: true, force: true }).catch(() => {});
    const reason =
      error instanceof Error ? error.message.split("\n").slice(0, 6).join("\n") : String(error);
    console.log(
      `spark: the native generation loop was not built, so Spark will use node-llama-cpp's loop (slower per token).\n${reason}`,
    );
    if (process.argv.includes("--strict")) process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
