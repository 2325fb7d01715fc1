// Builds and writes a llama-family GGUF with seeded random weights and a byte-level
// tokenizer: the model Spark's tests and benchmarks load instead of downloading one.

import {
  buildByteTokenizer,
  byteTokenizerMetadata,
  gpt2ByteSymbols,
  type ExtraToken,
} from "./byte-tokenizer.ts";
import { chatMlToolsTemplate } from "./chat-template.ts";
import {
  measureGgufFile,
  writeGgufFile,
  type GgufMetadataValue,
  type GgufTensor,
  type GgufWriteOptions,
} from "./gguf-writer.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import { SeededNormal, hashSeed } from "./seeded-normal.ts";
import type { GgufTensorType } from "./tensor-encoding.ts";
import {
  successorIds,
  successorOutputTensor,
  zeroMatrix,
  type TokenSuccessors,
} from "./successor-weights.ts";
import {
  contentOnlyRopeBase,
  scriptedTurnTensors,
  scriptedTurnTokens,
  type ScriptedTurns,
} from "./scripted-turns.ts";
import {
  testModelShapes,
  type TestModelShape,
  type TestModelShapeName,
} from "./test-model-shapes.ts";

/**
 * "qwen2" (the default) is llama's graph plus zero q/k/v biases: Qwen2.5's exact layout, and the
 * architecture node-llama-cpp requires before it picks QwenChatWrapper for the ChatML template.
 * "llama" is the plain layout; node-llama-cpp then wraps the same template in its
 * JinjaTemplateChatWrapper (which still extracts the <tool_call> function-call syntax).
 */
export type TestModelArchitecture = "llama" | "qwen2";
export const testModelArchitectures: readonly TestModelArchitecture[] = ["qwen2", "llama"];
export const defaultTestModelArchitecture: TestModelArchitecture = "qwen2";

export interface WriteTestModelOptions {
  shape?: TestModelShapeName;
  architecture?: TestModelArchitecture;
  type?: GgufTensorType;
  seed?: number;
  /** The trained context length the model declares; default: the shape's (tiny: 4,096). Random
   * weights have no real limit, so tests that need a long prompt (a Codex turn) raise it. */
  contextLength?: number;
  /** Leave the end-of-turn token (<|im_end|>) sampleable, so the noise model ends its turns
   * by itself after some tokens (a client's turn then completes); default false. */
  endsTurns?: boolean;
  /** Add Qwen2.5-Coder's fill-in-the-middle tokens to the vocabulary (ids 271–276, as in
   * spark-code-tiny.gguf), so the FIM path runs on its real tokens; default false. */
  fimTokens?: boolean;
  /**
   * A scripted model instead of noise: greedy decoding follows these token successors exactly
   * (see successor-weights.ts). Needs an untied shape (tiny, micro).
   */
  successors?: TokenSuccessors | undefined;
  /**
   * A scripted model whose script differs per turn, chosen by markers in the context (see
   * scripted-turns.ts); instead of successors. Needs an untied shape; adds its tokens to the
   * vocabulary (grown when the shape's is too small).
   */
  turns?: ScriptedTurns | undefined;
  /** Another family's Jinja chat template instead of Qwen2.5's (the chat-format tests). */
  chatTemplate?: string | undefined;
  signal?: AbortSignal;
}

export interface WriteTestModelResult {
  path: string;
  shape: TestModelShapeName;
  architecture: TestModelArchitecture;
  type: GgufTensorType;
  seed: number;
  contextLength: number;
  endsTurns: boolean;
  fimTokens: boolean;
  successors: TokenSuccessors | undefined;
  turns: ScriptedTurns | undefined;
  byteLength: number;
  parameterCount: number;
}

export const defaultTestModelSeed = 1;
/** Bump whenever the bytes this module writes change, so cached test models are rebuilt. */
export const testModelFormatVersion = 3;
// Weights are normal * 0.02 (GPT-2's init), so with RMS-normalised activations logits stay small.
// Weights scaled to their fan-in (the innermost dimension): small enough to stay finite in f16
// at every shape, large enough that the noise model's output varies instead of repeating a token.
const weightGain = 1.92;
const weightScaleFor = (fanIn: number): number => weightGain / Math.sqrt(fanIn);
// general.file_type values (llama_ftype): ALL_F32, MOSTLY_F16, MOSTLY_Q8_0.
const fileTypeIds: Record<GgufTensorType, number> = { f32: 0, f16: 1, q8_0: 7 };

function randomTensor(
  name: string,
  dimensions: number[],
  type: GgufTensorType,
  seed: number,
): GgufTensor {
  // One generator per tensor, advanced in row order: the writer asks for rows sequentially.
  const generator = new SeededNormal(hashSeed(seed, name));
  return {
    name,
    dimensions,
    type,
    fillRows: (_first, _count, target) =>
      generator.fill(target, weightScaleFor(dimensions[0] ?? 1)),
  };
}

/**
 * Tokens the noise model must never emit, so its output re-tokenizes to exactly the same tokens
 * (a follow-up turn's prefix then matches the KV cache) and it never ends a turn by itself (so
 * max-token and stop tests are deterministic): everything but single printable-ASCII bytes, minus
 * the letters that take part in merges. A zero output row gives a zero logit, below the best of
 * the random ones.
 */
function silencedTokenIds(
  vocabularySize: number,
  endsTurns: boolean,
  fimTokens: boolean,
): Set<number> {
  const tokenizer = buildByteTokenizer(vocabularySize, { fimTokens });
  const mergedBytes = new Set("taheinro");
  const emittable = new Set(gpt2ByteSymbols());
  const byteOfSymbol = new Map(gpt2ByteSymbols().map((symbol, byte) => [symbol, byte]));
  const silenced = new Set<number>();
  tokenizer.tokens.forEach((token, id) => {
    const byte = emittable.has(token) ? byteOfSymbol.get(token) : undefined;
    const printable = byte !== undefined && ((byte >= 0x20 && byte <= 0x7e) || byte === 0x0a);
    if (!printable || mergedBytes.has(String.fromCharCode(byte))) silenced.add(id);
  });
  if (endsTurns) silenced.delete(tokenizer.imEndId);
  return silenced;
}

function silenceRows(tensor: GgufTensor, rows: ReadonlySet<number>): GgufTensor {
  const rowLength = tensor.dimensions[0] ?? 0;
  return {
    ...tensor,
    fillRows: (firstRow, rowCount, target) => {
      tensor.fillRows(firstRow, rowCount, target);
      for (let row = firstRow; row < firstRow + rowCount; row++) {
        if (rows.has(row))
          target.fill(0, (row - firstRow) * rowLength, (row - firstRow + 1) * rowLength);
      }
    },
  };
}

function onesTensor(name: string, length: number): GgufTensor {
  // Norm weights stay f32 whatever the file type: ggml expects 1-D tensors in f32.
  return {
    name,
    dimensions: [length],
    type: "f32",
    fillRows: (_first, _count, target) => target.fill(1),
  };
}

function zerosTensor(name: string, length: number): GgufTensor {
  return {
    name,
    dimensions: [length],
    type: "f32",
    fillRows: (_first, _count, target) => target.fill(0),
  };
}

function buildTensors(
  shape: TestModelShape,
  architecture: TestModelArchitecture,
  type: GgufTensorType,
  seed: number,
  endsTurns: boolean,
  fimTokens: boolean,
  successors: TokenSuccessors | undefined,
  turns: ScriptedTurns | undefined,
  extraTokens: readonly ExtraToken[],
): GgufTensor[] {
  const embedding = shape.embeddingLength;
  // A scripted model's blocks add nothing to the residual stream (a turn script's block 0
  // attention aside, which replaces these tensors below).
  const blockOutput = (name: string, dimensions: number[]): GgufTensor =>
    successors === undefined && turns === undefined
      ? randomTensor(name, dimensions, type, seed)
      : zeroMatrix(name, dimensions, type);
  const headDimension = embedding / shape.headCount;
  const keyValueWidth = headDimension * shape.headCountKv;
  const feedForward = shape.feedForwardLength;
  const silenced = silencedTokenIds(shape.vocabularySize, endsTurns, fimTokens);
  const outputProjection = (name: string): GgufTensor =>
    silenceRows(randomTensor(name, [embedding, shape.vocabularySize], type, seed), silenced);
  const tensors: GgufTensor[] = [
    shape.tiedEmbeddings
      ? outputProjection("token_embd.weight")
      : randomTensor("token_embd.weight", [embedding, shape.vocabularySize], type, seed),
  ];
  for (let block = 0; block < shape.blockCount; block++) {
    const prefix = `blk.${block}.`;
    tensors.push(
      onesTensor(`${prefix}attn_norm.weight`, embedding),
      randomTensor(`${prefix}attn_q.weight`, [embedding, embedding], type, seed),
      randomTensor(`${prefix}attn_k.weight`, [embedding, keyValueWidth], type, seed),
      randomTensor(`${prefix}attn_v.weight`, [embedding, keyValueWidth], type, seed),
      blockOutput(`${prefix}attn_output.weight`, [embedding, embedding]),
    );
    if (architecture === "qwen2") {
      tensors.push(
        zerosTensor(`${prefix}attn_q.bias`, embedding),
        zerosTensor(`${prefix}attn_k.bias`, keyValueWidth),
        zerosTensor(`${prefix}attn_v.bias`, keyValueWidth),
      );
    }
    tensors.push(
      onesTensor(`${prefix}ffn_norm.weight`, embedding),
      randomTensor(`${prefix}ffn_gate.weight`, [embedding, feedForward], type, seed),
      randomTensor(`${prefix}ffn_up.weight`, [embedding, feedForward], type, seed),
      blockOutput(`${prefix}ffn_down.weight`, [feedForward, embedding]),
    );
  }
  tensors.push(onesTensor("output_norm.weight", embedding));
  if (turns !== undefined) {
    const tokenizer = buildByteTokenizer(shape.vocabularySize, { fimTokens, extraTokens });
    const designed = new Map(
      scriptedTurnTensors(turns, tokenizer, shape).map((tensor) => [tensor.name, tensor]),
    );
    return [
      ...tensors.map((tensor) => designed.get(tensor.name) ?? tensor),
      designed.get("output.weight") as GgufTensor,
    ];
  }
  if (successors !== undefined) {
    const pairs = successorIds(successors, shape.vocabularySize, fimTokens);
    // A second generator for token_embd: the writer reads the first one's rows in order.
    const embeddings = randomTensor(
      "token_embd.weight",
      [embedding, shape.vocabularySize],
      type,
      seed,
    );
    tensors.push(successorOutputTensor(embeddings, pairs));
  } else if (!shape.tiedEmbeddings) {
    tensors.push(outputProjection("output.weight"));
  }
  return tensors;
}

function buildMetadata(
  shape: TestModelShape,
  architecture: TestModelArchitecture,
  type: GgufTensorType,
  contextLength: number,
  fimTokens: boolean,
  chatTemplate: string,
  extraTokens: readonly ExtraToken[],
  contentOnlyRope: boolean,
): Map<string, GgufMetadataValue> {
  const tokenizer = buildByteTokenizer(shape.vocabularySize, { fimTokens, extraTokens });
  const uint32 = (value: number): GgufMetadataValue => ({ type: "uint32", value });
  const entries: [string, GgufMetadataValue][] = [
    ["general.architecture", { type: "string", value: architecture }],
    ["general.type", { type: "string", value: "model" }],
    ["general.name", { type: "string", value: `Spark Test Model ${shape.name}` }],
    ["general.file_type", uint32(fileTypeIds[type])],
    ["general.quantization_version", uint32(2)],
    [`${architecture}.context_length`, uint32(contextLength)],
    [`${architecture}.embedding_length`, uint32(shape.embeddingLength)],
    [`${architecture}.block_count`, uint32(shape.blockCount)],
    [`${architecture}.feed_forward_length`, uint32(shape.feedForwardLength)],
    [`${architecture}.attention.head_count`, uint32(shape.headCount)],
    [`${architecture}.attention.head_count_kv`, uint32(shape.headCountKv)],
    [`${architecture}.rope.dimension_count`, uint32(shape.embeddingLength / shape.headCount)],
    [
      `${architecture}.rope.freq_base`,
      { type: "float32", value: contentOnlyRope ? contentOnlyRopeBase : shape.ropeFreqBase },
    ],
    [
      `${architecture}.attention.layer_norm_rms_epsilon`,
      { type: "float32", value: shape.rmsNormEpsilon },
    ],
    [`${architecture}.vocab_size`, uint32(shape.vocabularySize)],
    ...byteTokenizerMetadata(tokenizer),
    ["tokenizer.chat_template", { type: "string", value: chatTemplate }],
  ];
  return new Map(entries);
}

function resolveTestModel(options: WriteTestModelOptions) {
  const namedShape = testModelShapes[options.shape ?? "tiny"];
  const type = options.type ?? namedShape.defaultType;
  const seed = options.seed ?? defaultTestModelSeed;
  const architecture = options.architecture ?? defaultTestModelArchitecture;
  const contextLength = options.contextLength ?? namedShape.contextLength;
  const endsTurns = options.endsTurns ?? false;
  const fimTokens = options.fimTokens ?? false;
  const { successors, turns } = options;
  if (successors !== undefined && turns !== undefined) {
    throw new SparkError("invalid_request", "A scripted model has successors or turns, not both.");
  }
  const extraTokens =
    turns === undefined
      ? []
      : scriptedTurnTokens(turns, buildByteTokenizer("fixed", { fimTokens }));
  const neededSize = buildByteTokenizer("fixed", { fimTokens, extraTokens }).tokens.length;
  const shape = {
    ...namedShape,
    vocabularySize: Math.max(namedShape.vocabularySize, neededSize),
  };
  if ((successors !== undefined || turns !== undefined) && shape.tiedEmbeddings) {
    throw new SparkError(
      "invalid_request",
      `A scripted model needs its own output head; the ${shape.name} shape ties it to the embeddings.`,
    );
  }
  if (!Number.isInteger(contextLength) || contextLength < 16 || contextLength > 0xffffffff) {
    throw new SparkError(
      "invalid_request",
      `The context length must be an integer from 16 up, got ${contextLength}.`,
    );
  }
  const writeOptions: GgufWriteOptions = {
    metadata: buildMetadata(
      shape,
      architecture,
      type,
      contextLength,
      fimTokens,
      options.chatTemplate ?? chatMlToolsTemplate,
      extraTokens,
      turns !== undefined,
    ),
    tensors: buildTensors(
      shape,
      architecture,
      type,
      seed,
      endsTurns,
      fimTokens,
      successors,
      turns,
      extraTokens,
    ),
    signal: options.signal,
  };
  return {
    summary: {
      shape: shape.name,
      architecture,
      type,
      seed,
      contextLength,
      endsTurns,
      fimTokens,
      successors,
      turns,
    },
    writeOptions,
  };
}

export async function writeTestModel(
  path: string,
  options: WriteTestModelOptions = {},
): Promise<WriteTestModelResult> {
  const { summary, writeOptions } = resolveTestModel(options);
  return { path, ...summary, ...(await writeGgufFile(path, writeOptions)) };
}

/** What writeTestModel would write (size, parameters), computed without writing. */
export function measureTestModel(
  options: WriteTestModelOptions = {},
): Omit<WriteTestModelResult, "path"> {
  const { summary, writeOptions } = resolveTestModel(options);
  return { ...summary, ...measureGgufFile(writeOptions) };
}
