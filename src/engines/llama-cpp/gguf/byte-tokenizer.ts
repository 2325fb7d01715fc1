// A byte-level GPT-2-style BPE vocabulary for the test model: the 256 byte symbols (so any text
// tokenizes and round-trips), a handful of merges, ChatML control tokens and filler tokens up to
// the requested vocabulary size.

import type { GgufMetadataValue } from "./gguf-writer.ts";

/** llama.cpp's llama_token_type values, as stored in tokenizer.ggml.token_type. */
export const tokenTypes = { normal: 1, control: 3, userDefined: 4 } as const;

export interface ByteTokenizer {
  tokens: string[];
  tokenTypes: number[];
  merges: string[];
  endOfTextId: number;
  imStartId: number;
  imEndId: number;
  /** Set when built with FIM tokens: Qwen2.5-Coder's, in its order. */
  fimTokenIds?: FimTokenIds;
}

export interface FimTokenIds {
  prefix: number;
  middle: number;
  suffix: number;
  pad: number;
  repositoryName: number;
  fileSeparator: number;
}

export interface ByteTokenizerOptions {
  /** Add Qwen2.5-Coder's fill-in-the-middle control tokens after the tool-call tags. */
  fimTokens?: boolean;
  /** Tokens a scripted model needs (scripted-turns.ts), after the FIM tokens: vocabulary text
   * (a normal token's bytes as GPT-2 symbols, a user-defined token's text as it is). */
  extraTokens?: readonly ExtraToken[];
}

export interface ExtraToken {
  text: string;
  type: "normal" | "userDefined";
}

// Merges whose parts are all in the vocabulary, so llama.cpp's BPE really applies them.
const mergePairs: readonly (readonly [string, string])[] = [
  ["Ġ", "t"],
  ["Ġ", "a"],
  ["h", "e"],
  ["i", "n"],
  ["r", "e"],
  ["o", "n"],
  ["Ġt", "he"],
  ["e", "r"],
];

const controlTokens = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] as const;
// Qwen2.5 marks its tool-call tags as user-defined tokens; node-llama-cpp's ChatML-family
// wrappers write them as special text.
const userDefinedTokens = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"];
// Qwen2.5-Coder's FIM control tokens, in its order (the ids spark-code-tiny.gguf has too).
const fimTokens = [
  "<|fim_prefix|>",
  "<|fim_middle|>",
  "<|fim_suffix|>",
  "<|fim_pad|>",
  "<|repo_name|>",
  "<|file_sep|>",
] as const;

/** GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 upward. */
export function gpt2ByteSymbols(): string[] {
  const symbols: string[] = new Array<string>(256);
  let nextCodePoint = 256;
  for (let byte = 0; byte < 256; byte++) {
    const printable =
      (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || byte >= 0xae;
    symbols[byte] = String.fromCodePoint(printable ? byte : nextCodePoint++);
  }
  return symbols;
}

/** Filler words (normal tokens) so a large vocabulary decodes to readable noise. */
function fillerToken(index: number): string {
  let word = "";
  let remaining = index;
  do {
    word = String.fromCharCode(97 + (remaining % 26)) + word;
    remaining = Math.floor(remaining / 26);
  } while (remaining > 0);
  return (index % 2 === 0 ? "Ġ" : "") + word.padStart(3, "x");
}

/** `vocabularySize` "fixed": only the byte, merge, special and extra tokens (no filler). */
export function buildByteTokenizer(
  vocabularySize: number | "fixed",
  options: ByteTokenizerOptions = {},
): ByteTokenizer {
  const tokens = gpt2ByteSymbols();
  const types: number[] = tokens.map(() => tokenTypes.normal);
  const known = new Set(tokens);
  const merges: string[] = [];
  for (const [left, right] of mergePairs) {
    merges.push(`${left} ${right}`);
    if (!known.has(left + right)) {
      known.add(left + right);
      tokens.push(left + right);
      types.push(tokenTypes.normal);
    }
  }
  const firstSpecialId = tokens.length;
  for (const token of controlTokens) {
    tokens.push(token);
    types.push(tokenTypes.control);
  }
  for (const token of userDefinedTokens) {
    tokens.push(token);
    types.push(tokenTypes.userDefined);
  }
  const firstFimId = tokens.length;
  if (options.fimTokens === true) {
    for (const token of fimTokens) {
      tokens.push(token);
      types.push(tokenTypes.control);
    }
  }
  for (const extra of options.extraTokens ?? []) {
    if (known.has(extra.text) || tokens.includes(extra.text)) {
      throw new RangeError(
        `The extra token ${JSON.stringify(extra.text)} is already in the vocabulary`,
      );
    }
    known.add(extra.text);
    tokens.push(extra.text);
    types.push(tokenTypes[extra.type]);
  }
  const size = vocabularySize === "fixed" ? tokens.length : vocabularySize;
  if (size < tokens.length) {
    throw new RangeError(`The byte vocabulary needs at least ${tokens.length} tokens`);
  }
  // llama.cpp requires every token text to be unique.
  for (let index = 0; tokens.length < size; index++) {
    const token = fillerToken(index);
    if (known.has(token)) continue;
    known.add(token);
    tokens.push(token);
    types.push(tokenTypes.normal);
  }
  return {
    tokens,
    tokenTypes: types,
    merges,
    endOfTextId: firstSpecialId,
    imStartId: firstSpecialId + 1,
    imEndId: firstSpecialId + 2,
    ...(options.fimTokens === true
      ? {
          fimTokenIds: {
            prefix: firstFimId,
            middle: firstFimId + 1,
            suffix: firstFimId + 2,
            pad: firstFimId + 3,
            repositoryName: firstFimId + 4,
            fileSeparator: firstFimId + 5,
          },
        }
      : {}),
  };
}

/** The tokenizer.ggml.* metadata llama.cpp reads for a "gpt2" (byte-level BPE) vocabulary. */
export function byteTokenizerMetadata(tokenizer: ByteTokenizer): [string, GgufMetadataValue][] {
  return [
    ["tokenizer.ggml.model", { type: "string", value: "gpt2" }],
    ["tokenizer.ggml.pre", { type: "string", value: "qwen2" }],
    ["tokenizer.ggml.tokens", { type: "string[]", value: tokenizer.tokens }],
    ["tokenizer.ggml.token_type", { type: "int32[]", value: tokenizer.tokenTypes }],
    ["tokenizer.ggml.merges", { type: "string[]", value: tokenizer.merges }],
    ["tokenizer.ggml.bos_token_id", { type: "uint32", value: tokenizer.endOfTextId }],
    ["tokenizer.ggml.eos_token_id", { type: "uint32", value: tokenizer.imEndId }],
    ["tokenizer.ggml.padding_token_id", { type: "uint32", value: tokenizer.endOfTextId }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: false }],
    ...fimMetadata(tokenizer.fimTokenIds),
  ];
}

function fimMetadata(ids: FimTokenIds | undefined): [string, GgufMetadataValue][] {
  if (ids === undefined) return [];
  const uint32 = (value: number): GgufMetadataValue => ({ type: "uint32", value });
  return [
    ["tokenizer.ggml.fim_pre_token_id", uint32(ids.prefix)],
    ["tokenizer.ggml.fim_mid_token_id", uint32(ids.middle)],
    ["tokenizer.ggml.fim_suf_token_id", uint32(ids.suffix)],
    ["tokenizer.ggml.fim_pad_token_id", uint32(ids.pad)],
    ["tokenizer.ggml.fim_rep_token_id", uint32(ids.repositoryName)],
    ["tokenizer.ggml.fim_sep_token_id", uint32(ids.fileSeparator)],
  ];
}
