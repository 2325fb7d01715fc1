// Run at `npm install`: builds Spark's native generation loop (native/generation-loop, an N-API
// addon) against the llama.cpp headers of the release node-llama-cpp installed. It links no
// llama.cpp library: at run time it calls whichever one node-llama-cpp loaded (CPU, CUDA, Vulkan,
// a local build; src/llama-library.cpp). It never fails the install: when it cannot build, it
// says why and Spark uses node-llama-cpp's own loop.
// SPARK_NATIVE_LOOP=0 skips the build; `--strict` (npm run build:native) exits 1 when it fails.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { buildChatFormat, chatFormatDirectory } from "./native/build-chat-format.ts";
import { extractLlamaHeaders } from "./native/llama-build-inputs.ts";

const run = promisify(execFile);
const addonDirectory = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../native/generation-loop",
);
export const addonFile = join(addonDirectory, "build", "Release", "spark_generation_loop.node");
const checkScript = join(dirname(fileURLToPath(import.meta.url)), "native", "check-native-loop.ts");

/** npm sets npm_config_node_gyp in lifecycle scripts; otherwise use the node-gyp npm bundles. */
export function nodeGypScript(): string {
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
export function nodeHeaders(): string[] {
  const configured = process.env.npm_config_nodedir;
  if (configured !== undefined && configured !== "") return [];
  const prefix = resolve(dirname(process.execPath), "..");
  return existsSync(join(prefix, "include", "node", "node_api.h")) ? [`--nodedir=${prefix}`] : [];
}

/** Builds the addon and checks that it loads; returns the addon's path. */
export async function buildNativeLoop(): Promise<string> {
  const includes = await extractLlamaHeaders(join(addonDirectory, "llama-headers"));
  const inputs = { variables: { llama_include_dirs: includes } };
  await writeFile(join(addonDirectory, "build-inputs.gypi"), JSON.stringify(inputs, null, 2));
  await run(
    process.execPath,
    [nodeGypScript(), "rebuild", "--silent", "--jobs=max", ...nodeHeaders()],
    {
      cwd: addonDirectory,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  await checkNoLinkedLlamaSymbols(addonFile);
  // Load it and bind it to node-llama-cpp's CPU binding in a child process: a function missing
  // from the installed llama.cpp must fail here, not in Spark.
  await run(process.execPath, [...process.execArgv, checkScript, addonFile]);
  return addonFile;
}

/**
 * A llama_/ggml_ function the addon calls without a forwarder in src/llama-library.cpp would be
 * left for the dynamic linker, which would find none (the addon links no llama.cpp) and stop the
 * process at the first call. `nm -u` lists undefined symbols on Linux and macOS alike.
 */
async function checkNoLinkedLlamaSymbols(file: string): Promise<void> {
  let listing: string;
  try {
    listing = (await run("nm", ["-u", file], { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    console.log(
      `spark: nm could not list the addon's undefined symbols, not checked (${String(error)})`,
    );
    return;
  }
  const unforwarded = listing
    .split("\n")
    .map((line) => line.trim().split(/\s+/).at(-1) ?? "")
    .filter((name) => /^_?(llama|ggml|gguf)_/.test(name));
  if (unforwarded.length > 0) {
    throw new Error(
      `the native loop calls ${unforwarded.join(", ")} without a forwarder: add ${unforwarded.length === 1 ? "it" : "them"} to SPARK_LLAMA_FUNCTIONS in native/generation-loop/src/llama-library.cpp`,
    );
  }
}

/**
 * Builds both addons side by side, each compiling on every core: neither needs the other, and one
 * after the other the generation loop (ten files, one at a time) left a core idle for its ~12 s.
 */
async function main(): Promise<void> {
  await Promise.all([buildNativeLoopReporting(), buildChatFormatReporting()]);
}

async function buildNativeLoopReporting(): Promise<void> {
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

/** Built on its own: the loop works without it (node-llama-cpp's chat wrappers), and it without the loop. */
async function buildChatFormatReporting(): Promise<void> {
  try {
    const started = Date.now();
    const built = await buildChatFormat(nodeGypScript(), nodeHeaders());
    console.log(
      `spark: chat formats (llama.cpp's common/chat) built in ${Date.now() - started} ms (${built})`,
    );
  } catch (error) {
    await rm(join(chatFormatDirectory, "build"), { recursive: true, force: true }).catch(() => {});
    const reason =
      error instanceof Error ? error.message.split("\n").slice(0, 6).join("\n") : String(error);
    console.log(
      `spark: llama.cpp's chat formats were not built, so Spark renders prompts with node-llama-cpp's chat wrappers.\n${reason}`,
    );
    if (process.argv.includes("--strict")) process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
