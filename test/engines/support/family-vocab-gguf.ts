// Vocab-only GGUFs for the chat-format family tests: llama.cpp's own test vocabularies
// (models/ggml-vocab-*.gguf) and real templates (models/templates/*.jinja), taken from the
// llama.cpp source bundle node-llama-cpp ships (extracted once into a temp folder and reused),
// re-written with the family's template, BOS/EOS and the special tokens the template uses that
// the test vocabulary lacks (added as control tokens); familyVocabGguf keeps each one written, for
// later runs, in a temp folder keyed by everything it is written from.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readGgufFileInfo } from "node-llama-cpp";
import {
  writeGgufFile,
  type GgufMetadataValue,
} from "../../../src/engines/llama-cpp/gguf/gguf-writer.ts";
import {
  extractLlamaSources,
  llamaSourceBundle,
} from "../../../scripts/native/llama-build-inputs.ts";

const CONTROL_TOKEN = 3;

/** The bundle's models/ folder (templates and these vocab GGUFs), extracted once per bundle. */
export async function llamaModelsFolder(vocabs: readonly string[]): Promise<string> {
  const bundle = llamaSourceBundle();
  const identity = createHash("sha256")
    .update(`${bundle}:${(await stat(bundle)).size}`)
    .digest("hex")
    .slice(0, 12);
  const target = join(tmpdir(), `spark-llama-models-${identity}`);
  await extractLlamaSources(target, [
    "models/templates",
    ...[...new Set(vocabs)].map((vocab) => `models/ggml-vocab-${vocab}.gguf`),
  ]);
  return join(target, "models");
}

/** Template tokens a vocabulary should hold as single special tokens. */
function specialTokensIn(template: string): string[] {
  const pattern =
    /<\|[^|<>\s]{1,40}\|>|<｜[^｜\s]{1,40}｜>|\[\/?[A-Z_]{3,20}\]|<\/?[A-Z][A-Z_]{2,20}(?:_\d{1,3})?>|<\/?(?:tool_call|tool_response|think|tools|minimax:tool_call|arg_key|arg_value)>/g;
  return [...new Set(template.match(pattern) ?? [])];
}

function flatten(
  value: unknown,
  prefix: string,
  into: Map<string, GgufMetadataValue>,
  arrayTypes: Record<string, "int32[]" | "float32[]">,
): void {
  if (typeof value === "string") into.set(prefix, { type: "string", value });
  else if (typeof value === "boolean") into.set(prefix, { type: "bool", value });
  else if (typeof value === "number") {
    if (!Number.isInteger(value)) into.set(prefix, { type: "float32", value });
    else into.set(prefix, value < 0 ? { type: "int32", value } : { type: "uint32", value });
  } else if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.from(value as ArrayLike<unknown>);
    if (items.every((item) => typeof item === "string"))
      into.set(prefix, { type: "string[]", value: items });
    else
      into.set(prefix, {
        type: arrayTypes[prefix] ?? "float32[]",
        value: items.map(Number),
      });
  } else if (typeof value === "object" && value !== null) {
    for (const [key, child] of Object.entries(value))
      flatten(child, prefix === "" ? key : `${prefix}.${key}`, into, arrayTypes);
  }
}

export interface FamilyVocab {
  vocab: string;
  template: string;
  bosToken?: string;
  eosToken: string;
}

// Each vocab file read once per process: several families share one (ten use gpt-2's), and
// parsing a 150k-token vocabulary is most of a write. The info is only read below (copied).
const vocabInfos = new Map<string, ReturnType<typeof readGgufFileInfo>>();

/** Writes `target`: the vocab's metadata with the family's template, tokens, BOS and EOS. */
export async function writeFamilyVocabGguf(family: FamilyVocab, target: string): Promise<void> {
  let reading = vocabInfos.get(family.vocab);
  if (reading === undefined) {
    reading = readGgufFileInfo(family.vocab, { readTensorInfo: false, logWarnings: false });
    vocabInfos.set(family.vocab, reading);
  }
  const info = await reading;
  const metadata = new Map<string, GgufMetadataValue>();
  flatten(info.metadata, "", metadata, { "tokenizer.ggml.token_type": "int32[]" });
  const tokens = [...((metadata.get("tokenizer.ggml.tokens")?.value as string[]) ?? [])];
  const types = Array.from(
    (metadata.get("tokenizer.ggml.token_type")?.value as ArrayLike<number>) ?? [],
  );
  const scores = metadata.get("tokenizer.ggml.scores");
  const scoreValues =
    scores === undefined ? undefined : Array.from(scores.value as ArrayLike<number>);
  const idOf = (text: string): number => {
    const found = tokens.indexOf(text);
    if (found >= 0) return found;
    tokens.push(text);
    types.push(CONTROL_TOKEN);
    scoreValues?.push(0);
    return tokens.length - 1;
  };
  for (const token of specialTokensIn(family.template)) idOf(token);
  metadata.set("tokenizer.ggml.eos_token_id", { type: "uint32", value: idOf(family.eosToken) });
  if (family.bosToken !== undefined)
    metadata.set("tokenizer.ggml.bos_token_id", { type: "uint32", value: idOf(family.bosToken) });
  else metadata.delete("tokenizer.ggml.bos_token_id");
  metadata.set("tokenizer.ggml.tokens", { type: "string[]", value: tokens });
  metadata.set("tokenizer.ggml.token_type", { type: "int32[]", value: types });
  if (scoreValues !== undefined)
    metadata.set("tokenizer.ggml.scores", { type: "float32[]", value: scoreValues });
  metadata.set("tokenizer.chat_template", { type: "string", value: family.template });
  await writeGgufFile(target, { metadata, tensors: [] });
}

/** This writer and the GGUF writer it calls: a change to either writes every file again. */
const WRITER_SOURCES = [
  fileURLToPath(import.meta.url),
  fileURLToPath(new URL("../../../src/engines/llama-cpp/gguf/gguf-writer.ts", import.meta.url)),
];

let writersDigest: Promise<string> | undefined;

/** The writers' source text hashed, read once per process (not once per family). */
function writersSourceDigest(): Promise<string> {
  writersDigest ??= Promise.all(WRITER_SOURCES.map((source) => readFile(source))).then(
    (sources) => {
      const hash = createHash("sha256");
      for (const source of sources) hash.update(source);
      return hash.digest("hex");
    },
  );
  return writersDigest;
}

/**
 * The family's vocab GGUF, written once per machine: parsing a 150k-token vocabulary and writing
 * it again cost each test file that opens families ~0.2–0.4 s of CPU a family, every run. Keyed by
 * the vocab file (path, size, time), the family's fields and the writers' source text.
 */
export async function familyVocabGguf(family: FamilyVocab): Promise<string> {
  const vocab = await stat(family.vocab);
  const { template, bosToken, eosToken } = family;
  const key = createHash("sha256").update(
    JSON.stringify([family.vocab, vocab.size, vocab.mtimeMs, template, bosToken, eosToken]),
  );
  key.update(await writersSourceDigest());
  const folder = join(tmpdir(), "spark-family-vocab");
  const target = join(folder, `${key.digest("hex").slice(0, 24)}.gguf`);
  if (
    await stat(target).then(
      (found) => found.isFile(),
      () => false,
    )
  )
    return target;
  await mkdir(folder, { recursive: true });
  // Written beside it and renamed: another worker may be writing or reading the same file.
  const partial = `${target}.${process.pid}.partial`;
  await writeFamilyVocabGguf({ vocab: family.vocab, template, bosToken, eosToken }, partial);
  await rename(partial, target);
  return target;
}
