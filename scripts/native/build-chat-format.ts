// Builds native/chat-format, llama.cpp's chat template engine and tool-call parsers (common/chat*,
// jinja/, peg-parser, json-schema-to-grammar) compiled from the source bundle node-llama-cpp ships,
// so Spark renders and parses each model's chat format as llama-server does. It links no llama.cpp
// library (src/common-shims.cpp), so it loads wherever Node does, with or without the native loop.
import { execFile } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { extractLlamaSources } from "./llama-build-inputs.ts";

const run = promisify(execFile);
export const chatFormatDirectory = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../native/chat-format",
);
export const chatFormatAddonFile = join(
  chatFormatDirectory,
  "build",
  "Release",
  "spark_chat_format.node",
);

/** common/ files the chat formats need besides jinja/ and parsers/ (all of which they need). */
const commonSources = [
  "chat.cpp",
  "chat-auto-parser-generator.cpp",
  "chat-auto-parser-helpers.cpp",
  "chat-diff-analyzer.cpp",
  "chat-peg-parser.cpp",
  "peg-parser.cpp",
  "json-schema-to-grammar.cpp",
  "json-schema.cpp",
  "json.cpp",
  "trie.cpp",
  "unicode.cpp",
];

async function cppFilesIn(directory: string): Promise<string[]> {
  const entries = await readdir(directory).catch(() => [] as string[]);
  return entries
    .filter((name) => name.endsWith(".cpp"))
    .sort()
    .map((name) => join(directory, name));
}

/**
 * The model families' parsers (common/parsers/, one small file per family over the same headers)
 * as one translation unit: compiled apart, each spends most of its ~2.5 s of CPU reading those
 * headers again, and together they took ~42 of the build's ~114 core-seconds; as one unit they
 * take ~7. Between them they define no macro and one file-local function, so they compile the same
 * either way.
 * Returns the unit's path; the files it includes are the `parsers` given.
 */
async function writeParsersUnit(sources: string, parsers: string[]): Promise<string> {
  const unit = join(sources, "parsers-unit.cpp");
  const includes = parsers.map((file) => `#include ${JSON.stringify(file)}\n`).join("");
  await writeFile(unit, `// Written by scripts/native/build-chat-format.ts.\n${includes}`);
  return unit;
}

/**
 * Extracts the sources (once), writes the gyp inputs and builds with every core (the llama.cpp
 * files are independent; one core takes about twice as long). Returns the addon's path. When the
 * parsers do not build as one unit (a later llama.cpp could give two of them one name), it says
 * so and builds them apart.
 */
export async function buildChatFormat(nodeGyp: string, nodeHeaders: string[]): Promise<string> {
  const sources = join(chatFormatDirectory, "llama-sources");
  await extractLlamaSources(sources, ["common", "include", "ggml/include", "vendor/nlohmann"]);
  const common = join(sources, "common");
  const shared = [
    ...commonSources.map((name) => join(common, name)),
    ...(await cppFilesIn(join(common, "jinja"))),
  ];
  const parsers = await cppFilesIn(join(common, "parsers"));
  const build = (chatSources: string[], start: BuildStart): Promise<void> =>
    buildWith(nodeGyp, nodeHeaders, sources, chatSources, start);
  try {
    await build([...shared, await writeParsersUnit(sources, parsers)], "clean");
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    console.log(
      `spark: the chat-format parsers did not build as one unit (${why}); building them apart`,
    );
    // The shared files compiled before stay compiled: only the parsers are built now.
    await build([...shared, ...parsers], "reuse");
  }
  // Loading it with RTLD_NOW proves no symbol was left for the dynamic linker (a common.cpp
  // function the shims lack would otherwise fail only at its first call); rendering a template
  // proves the engine works.
  await run(process.execPath, [
    "-e",
    `const module = { exports: {} };` +
      `process.dlopen(module, ${JSON.stringify(chatFormatAddonFile)}, require("node:os").constants.dlopen.RTLD_NOW);` +
      `const addon = module.exports;` +
      `const templates = addon.openTemplates("{{ messages[0].content }}", "", "");` +
      `const result = JSON.parse(addon.applyTemplate(templates, JSON.stringify({ messages: [{ role: "user", content: "ok" }] })));` +
      `if (result.prompt !== "ok") throw new Error("rendered " + JSON.stringify(result.prompt));`,
  ]);
  return chatFormatAddonFile;
}

/**
 * `clean`: from an empty build folder (node-gyp rebuild); `reuse`: configure and build over the
 * objects already there, which make compiles again only where a source or its command changed.
 */
type BuildStart = "clean" | "reuse";

/** Writes the gyp inputs for `chatSources` (the addon's own files come from binding.gyp) and builds. */
async function buildWith(
  nodeGyp: string,
  nodeHeaders: string[],
  sources: string,
  chatSources: string[],
  start: BuildStart,
): Promise<void> {
  // gyp wants sources relative to binding.gyp (an absolute one becomes an object path it cannot make).
  const fromBinding = (path: string): string => relative(chatFormatDirectory, path);
  const inputs = {
    variables: {
      llama_chat_sources: chatSources.map(fromBinding),
      llama_include_dirs: [
        join(sources, "common"),
        join(sources, "include"),
        join(sources, "ggml", "include"),
        join(sources, "vendor"),
      ],
    },
  };
  await writeFile(join(chatFormatDirectory, "build-inputs.gypi"), JSON.stringify(inputs, null, 2));
  const commands = start === "clean" ? ["rebuild"] : ["configure", "build"];
  for (const command of commands) {
    await run(process.execPath, [nodeGyp, command, "--silent", "--jobs=max", ...nodeHeaders], {
      cwd: chatFormatDirectory,
      maxBuffer: 16 * 1024 * 1024,
    });
  }
}
