// Weights for a test model that follows a script of token successors ("after `\n` comes `O`, after
// `K` comes `<tool_call>`"): every block adds nothing (zero attention and FFN outputs), so the
// last hidden state is the current token's embedding, and the output row of each scripted
// successor points along its predecessors' embeddings. Greedy decoding then follows the script
// exactly; a token with no successor gives every unscripted token the same zero logit, so a
// grammar's first allowed token (the lowest id) wins. Real llama.cpp inference, chosen output.
import { buildByteTokenizer, gpt2ByteSymbols, type ByteTokenizer } from "./byte-tokenizer.ts";
import type { GgufTensor } from "./gguf-writer.ts";
import { SparkError } from "../../../protocol/spark-error.ts";

/** Token text (one byte, or a special token such as `<tool_call>`) to the token that follows it. */
export type TokenSuccessors = Readonly<Record<string, string>>;

/** Pairs of token ids, [predecessor, successor]. */
export function successorIds(
  successors: TokenSuccessors,
  vocabularySize: number,
  fimTokens: boolean,
): [number, number][] {
  const tokenizer = buildByteTokenizer(vocabularySize, { fimTokens });
  return Object.entries(successors).map(([from, to]) => [
    tokenIdOf(tokenizer, from),
    tokenIdOf(tokenizer, to),
  ]);
}

function tokenIdOf(tokenizer: ByteTokenizer, text: string): number {
  const special = tokenizer.tokens.indexOf(text);
  if (text.length > 1 && special !== -1) return special;
  const bytes = Buffer.from(text, "utf8");
  const byte = bytes[0];
  if (bytes.length !== 1 || byte === undefined) {
    throw new SparkError(
      "invalid_request",
      `A scripted successor must be one byte or a special token, got ${JSON.stringify(text)}.`,
    );
  }
  return tokenizer.tokens.indexOf(gpt2ByteSymbols()[byte] ?? "");
}

/**
 * The output projection: row `successor` is the sum of its predecessors' unit embeddings. Each
 * embedding row is read from `embedding` (the token_embd tensor's own generator).
 */
export function successorOutputTensor(
  embedding: GgufTensor,
  pairs: readonly [number, number][],
): GgufTensor {
  const [width = 0, vocabularySize = 0] = embedding.dimensions;
  const embeddings = new Float32Array(width * vocabularySize);
  embedding.fillRows(0, vocabularySize, embeddings);
  const rows = new Float32Array(width * vocabularySize);
  for (const [from, to] of pairs) {
    const source = embeddings.subarray(from * width, (from + 1) * width);
    const norm = Math.hypot(...source);
    for (let index = 0; index < width; index++) {
      rows[to * width + index] = (rows[to * width + index] ?? 0) + (source[index] ?? 0) / norm;
    }
  }
  return {
    name: "output.weight",
    dimensions: [width, vocabularySize],
    type: embedding.type,
    fillRows: (firstRow, rowCount, target) =>
      target.set(rows.subarray(firstRow * width, (firstRow + rowCount) * width)),
  };
}

/** A tensor of zeros (a block's output projection that adds nothing). */
export function zeroMatrix(
  name: string,
  dimensions: number[],
  type: GgufTensor["type"],
): GgufTensor {
  return { name, dimensions, type, fillRows: (_first, _count, target) => target.fill(0) };
}
