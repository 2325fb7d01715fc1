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

/**
 * common/ files the chat formats need besides jinja/ and parsers/ (all of which they need), each
 * compiled as a translation unit of its own.
 */
const commonSourcesApart = [
  "peg-parser.cpp",
  "json-schema-to-grammar.cpp",
  "json-schema.cpp",
  "json.cpp",
  "trie.cpp",
  "unicode.cpp",
];
/** The chat template and tool-call files, compiled as one translation unit (see `Unit`). */
const commonChatSources = [
  "chat.cpp",
  "chat-auto-parser-generator.cpp",
  "chat-auto-parser-helpers.cpp",
  "chat-diff-analyzer.cpp",
  "chat-peg-parser.cpp",
];
/**
 * jinja/'s file that specializes a template the others instantiate (`global_from_json`): in one
 * unit it must come first, or the specialization comes after the instantiation.
 */
const jinjaFirst = "value.cpp";

async function cppFilesIn(directory: string): Promise<string[]> {
  const entries = await readdir(directory).catch(() => [] as string[]);
  return entries
    .filter((name) => name.endsWith(".cpp"))
    .sort()
    .map((name) => join(directory, name));
}

/**
 * Files compiled as one translation unit: apart, each spends most of its CPU reading the same
 * headers (nlohmann's JSON, the PEG parser's) and compiling the same template instances again.
 * Measured alone at -O2: the per-family parsers (common/parsers/, one small file per family) took
 * ~42 core-seconds apart and ~8 as one unit; common/chat*.cpp 24.6 and 13.6; jinja/ 20.6 and 16.3.
 * Grouping the rest gained nothing (json*.cpp: 16.0 apart, 17.1 together), and all of common/ as
 * one unit does not compile (`ordered_json` is declared twice). Within a unit the files define no
 * file-local name twice (it would not compile) and no macro a later file reads.
 */
interface Unit {
  /** The unit's file, written beside the sources. */
  name: string;
  files: string[];
}

async function writeUnit(sources: string, { name, files }: Unit): Promise<string> {
  const unit = join(sources, name);
  const includes = files.map((file) => `#include ${JSON.stringify(file)}\n`).join("");
  await writeFile(unit, `// Written by scripts/native/build-chat-format.ts.\n${includes}`);
  return unit;
}

/**
 * Extracts the sources (once), writes the gyp inputs and builds with every core (the translation
 * units are independent; one core takes about twice as long). Returns the addon's path. When the
 * units do not build (a later llama.cpp could give two of a unit's files one file-local name), it
 * says so and builds their files apart, over the objects already compiled.
 */
export async function buildChatFormat(nodeGyp: string, nodeHeaders: string[]): Promise<string> {
  const sources = join(chatFormatDirectory, "llama-sources");
  await extractLlamaSources(sources, ["common", "include", "ggml/include", "vendor/nlohmann"]);
  const common = join(sources, "common");
  const apart = commonSourcesApart.map((name) => join(common, name));
  const jinja = await cppFilesIn(join(common, "jinja"));
  const units: Unit[] = [
    { name: "chat-unit.cpp", files: commonChatSources.map((name) => join(common, name)) },
    {
      name: "jinja-unit.cpp",
      files: [
        ...jinja.filter((file) => file.endsWith(`/${jinjaFirst}`)),
        ...jinja.filter((file) => !file.endsWith(`/${jinjaFirst}`)),
      ],
    },
    { name: "parsers-unit.cpp", files: await cppFilesIn(join(common, "parsers")) },
  ];
  const build = (chatSources: string[], start: BuildStart): Promise<void> =>
    buildWith(nodeGyp, nodeHeaders, sources, chatSources, start);
  try {
    const unitFiles = await Promise.all(units.map((unit) => writeUnit(sources, unit)));
    await build([...apart, ...unitFiles], "clean");
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    console.log(
      `spark: the chat-format sources did not build as ${units.map((unit) => unit.name).join(", ")} (${why}); building their files apart`,
    );
    // The files compiled apart before stay compiled: only the units' files are built now.
    await build([...apart, ...units.flatMap((unit) => unit.files)], "reuse");
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
