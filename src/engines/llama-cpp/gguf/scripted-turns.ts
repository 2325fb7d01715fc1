// Weights for a test model that writes a different script in each turn of a conversation (an agent
// that calls read_file, then apply_patch, then answers), on any chat template. Real llama.cpp
// inference on weights designed by hand instead of trained (block 0 only; every other block adds
// nothing):
// - Each token the script writes is one token of the vocabulary (a template's special token, one
//   byte, or any other text, added as a token of its own), so a script writes any text.
// - A turn is chosen by a marker: a text the test puts in the conversation before that turn (in a
//   file the agent reads, in a tool's result), added as a user-defined token so the tokenizer
//   always splits it out. One attention head scores keys by content alone (query and key in the
//   head's last dimension, rope's slowest pair, turned ~2e-9 rad a position at freq_base 1e9):
//   every query matches the markers, a later turn's marker outscores an earlier one by e^40, and
//   the head copies the strongest marker's one-hot value into that turn's residual dimension.
//   No marker (the first turn): the values are all zero and nothing is added.
// - The FFN is a lookup table with one unit per scripted step (turn, token → next token): its up
//   projection reads the token's own dimension, its gate opens only in the step's turn (SwiGLU:
//   silu(+14) passes, silu(-14) ≈ 0), and its down projection writes the successor's dimension,
//   scaled so that it is exactly 1 after the output norm. The output head reads each successor's
//   dimension with a logit of 30; every other token's logit is 0, so greedy or sampled, the model
//   follows the script. A token has one successor per turn (the same token may go elsewhere in
//   another turn); a turn's first token is the prompt's last (the `\n` of `assistant\n`).
import { SparkError } from "../../../protocol/spark-error.ts";
import { gpt2ByteSymbols, type ByteTokenizer, type ExtraToken } from "./byte-tokenizer.ts";
import type { GgufTensor } from "./gguf-writer.ts";

export interface ScriptedTurn {
  /** The text whose token in the context selects this turn; none for the first turn. It must
   * occur nowhere in the conversation before the turn it selects. */
  marker?: string;
  /** The prompt's last token, then each token the model writes; the last one ends the turn (the
   * template's end-of-turn token). Each element is one token: a special token's text, one
   * byte, or any other text (a token of its own). */
  tokens: readonly string[];
}

export type ScriptedTurns = readonly ScriptedTurn[];

/**
 * rope.freq_base of a turn-scripted model: the head's last dimension is in rope's slowest pair,
 * which then turns by 1e9^(-62/64) ≈ 2e-9 radians a position, so it scores by content alone.
 */
export const contentOnlyRopeBase = 1e9;
const markerValue = 4; // a marker's embedding along its own dimension
const queryGain = 8; // every query along the content dimension (xn[0] = 1 → q = 8)
const scorePerTurn = 40; // attention score of turn m's marker: 40 m (softmax scale 1/sqrt(head))
const turnGain = 16; // the turn direction's length in the residual stream (a token's is 16)
const predecessorValue = 4; // a scripted predecessor's embedding along its own dimension
const gateGain = 40; // an FFN unit's gate: ≈ +14 in its turn, ≈ -14 (shut) in any other
const successorLogit = 30;

/**
 * Qwen3's reasoning tags are user-defined tokens in its vocabulary (one token each, also where the
 * tokenizer reads them from text, as llama-server's reasoning tags are tokenized); any other piece
 * is a normal token, which text tokenizes to bytes.
 */
const userDefinedPieces = new Set(["<think>", "</think>"]);

/** Which tokens the scripts need that the byte vocabulary lacks: markers, then multi-byte pieces. */
export function scriptedTurnTokens(turns: ScriptedTurns, base: ByteTokenizer): ExtraToken[] {
  checkTurns(turns);
  const extra: ExtraToken[] = [];
  const seen = new Set(base.tokens);
  for (const turn of turns) {
    if (turn.marker !== undefined && !seen.has(turn.marker)) {
      seen.add(turn.marker);
      extra.push({ text: turn.marker, type: "userDefined" });
    }
  }
  for (const turn of turns) {
    for (const piece of turn.tokens) {
      if (isSpecial(base, piece) || Buffer.byteLength(piece) === 1) continue;
      const reasoningTag = userDefinedPieces.has(piece);
      const text = reasoningTag ? piece : vocabularyText(piece);
      if (seen.has(text)) continue;
      seen.add(text);
      extra.push({ text, type: reasoningTag ? "userDefined" : "normal" });
    }
  }
  return extra;
}

function checkTurns(turns: ScriptedTurns): void {
  const markers = turns.map((turn) => turn.marker);
  const invalid =
    turns.length === 0
      ? "no turns"
      : markers[0] !== undefined
        ? "the first turn has a marker (it runs before any)"
        : markers.slice(1).some((marker) => marker === undefined || marker === "")
          ? "a later turn has no marker"
          : new Set(markers).size !== markers.length
            ? "two turns share a marker"
            : turns.length > 9
              ? "more than 9 turns"
              : turns.some((turn) => turn.tokens.length < 2)
                ? "a turn writes no token"
                : turns.some((turn) => turn.tokens.includes(""))
                  ? "an empty token"
                  : undefined;
  if (invalid !== undefined) {
    throw new SparkError("invalid_request", `Scripted turns are invalid: ${invalid}.`);
  }
}

function isSpecial(tokenizer: ByteTokenizer, text: string): boolean {
  const id = tokenizer.tokens.indexOf(text);
  return id !== -1 && tokenizer.tokenTypes[id] !== 1;
}

/** A normal token's text as a byte-level vocabulary stores it: each byte as its GPT-2 symbol. */
function vocabularyText(piece: string): string {
  const symbols = gpt2ByteSymbols();
  return [...Buffer.from(piece, "utf8")].map((byte) => symbols[byte] ?? "").join("");
}

function tokenId(tokenizer: ByteTokenizer, piece: string): number {
  const id = isSpecial(tokenizer, piece)
    ? tokenizer.tokens.indexOf(piece)
    : tokenizer.tokens.indexOf(vocabularyText(piece));
  if (id === -1) throw new SparkError("internal_error", `No token for ${JSON.stringify(piece)}.`);
  return id;
}

interface Shape {
  embeddingLength: number;
  feedForwardLength: number;
  headCount: number;
  headCountKv: number;
  vocabularySize: number;
  rmsNormEpsilon: number;
}

/** The tensors that differ from a zero-block scripted model: token_embd, block 0's attention and
 * FFN, and the output head. */
export function scriptedTurnTensors(
  turns: ScriptedTurns,
  tokenizer: ByteTokenizer,
  shape: Shape,
): GgufTensor[] {
  const width = shape.embeddingLength;
  const headSize = width / shape.headCount;
  const epsilon = shape.rmsNormEpsilon;
  const layout = residualLayout(turns, tokenizer, width, shape.feedForwardLength);
  const { steps, markerIds } = layout;
  const markerCount = turns.length - 1;
  const contentDimension = headSize - 1; // in head 0 and its KV head 0: rope's slowest pair
  // Mean square of the residual stream after block 0's attention, without and with a turn.
  const attended = (turn: number): number => (turn === 0 ? 1 : (width + turnGain ** 2) / width);
  const silu = (value: number): number => value / (1 + Math.exp(-value));
  // Each step's FFN unit scaled so that its successor's dimension is 1 after the output norm.
  const downScale = steps.map(({ turn }) => {
    const scale = Math.sqrt(attended(turn) + epsilon);
    const activation = silu(gateGain / (2 * scale)) / scale;
    return Math.sqrt((attended(turn) + epsilon) / (1 - 1 / width)) / activation;
  });
  return [
    rowsTensor("token_embd.weight", width, shape.vocabularySize, (row, id) => {
      row[0] = 1;
      let used = 1;
      const marker = markerIds.indexOf(id);
      if (marker > 0) {
        row[layout.markerDimension(marker)] = markerValue;
        used += markerValue ** 2;
      }
      const predecessor = layout.predecessorDimension.get(id);
      if (predecessor !== undefined) {
        row[predecessor] = predecessorValue;
        used += predecessorValue ** 2;
      }
      // Every row's mean square is 1, so RMS norm leaves the stream as it is.
      row[layout.fillerDimension] = Math.sqrt(width - used);
    }),
    rowsTensor("blk.0.attn_q.weight", width, width, (row, index) => {
      if (index === contentDimension) row[0] = queryGain;
    }),
    rowsTensor("blk.0.attn_k.weight", width, headSize * shape.headCountKv, (row, index) => {
      if (index !== contentDimension) return;
      for (let turn = 1; turn <= markerCount; turn++) {
        row[layout.markerDimension(turn)] =
          (scorePerTurn * turn * Math.sqrt(headSize)) / (queryGain * markerValue);
      }
    }),
    rowsTensor("blk.0.attn_v.weight", width, headSize * shape.headCountKv, (row, index) => {
      if (index >= 1 && index <= markerCount) row[layout.markerDimension(index)] = 1 / markerValue;
    }),
    rowsTensor("blk.0.attn_output.weight", width, width, (row, index) => {
      for (let turn = 1; turn <= markerCount; turn++) {
        if (index === layout.turnDimension(turn)) row[turn] = turnGain;
      }
    }),
    rowsTensor("blk.0.ffn_gate.weight", width, shape.feedForwardLength, (row, unit) => {
      const step = steps[unit];
      if (step === undefined) return;
      // Open (≈ gateGain / 2) in the step's turn, shut (silu of a large negative ≈ 0) elsewhere.
      if (step.turn === 0) {
        row[0] = gateGain / 2;
        for (let turn = 1; turn <= markerCount; turn++) {
          row[layout.turnDimension(turn)] = -gateGain / turnGain;
        }
      } else {
        row[0] = -gateGain / 2;
        row[layout.turnDimension(step.turn)] = gateGain / turnGain;
      }
    }),
    rowsTensor("blk.0.ffn_up.weight", width, shape.feedForwardLength, (row, unit) => {
      const step = steps[unit];
      if (step === undefined) return;
      row[layout.predecessorDimension.get(step.from) ?? 0] = 1 / predecessorValue;
    }),
    rowsTensor("blk.0.ffn_down.weight", shape.feedForwardLength, width, (row, index) => {
      steps.forEach((step, unit) => {
        if (layout.successorDimension.get(step.to) === index) row[unit] = downScale[unit] ?? 0;
      });
    }),
    rowsTensor("output.weight", width, shape.vocabularySize, (row, id) => {
      const dimension = layout.successorDimension.get(id);
      if (dimension !== undefined) row[dimension] = successorLogit;
    }),
  ];
}

interface ScriptedStep {
  turn: number;
  from: number;
  to: number;
}

/**
 * The residual stream's dimensions: 0 is 1 in every token (what queries read), then one per
 * marker, one per turn (written by the attention head), one that pads every token's row to a mean
 * square of 1, one per scripted predecessor token, one per successor token (written by the FFN).
 */
function residualLayout(
  turns: ScriptedTurns,
  tokenizer: ByteTokenizer,
  width: number,
  feedForwardLength: number,
) {
  const markerCount = turns.length - 1;
  const steps = scriptedSteps(turns, tokenizer);
  const fillerDimension = 1 + 2 * markerCount;
  const predecessorDimension = new Map<number, number>();
  const successorDimension = new Map<number, number>();
  let next = fillerDimension + 1;
  for (const { from } of steps)
    if (!predecessorDimension.has(from)) predecessorDimension.set(from, next++);
  for (const { to } of steps) if (!successorDimension.has(to)) successorDimension.set(to, next++);
  if (next > width || steps.length > feedForwardLength) {
    throw new SparkError(
      "invalid_request",
      `The script has ${steps.length} steps over ${next} dimensions; the model is ${width} wide ` +
        `with ${feedForwardLength} FFN units: use a wider shape or fewer, longer tokens.`,
    );
  }
  return {
    steps,
    markerIds: turns.map((turn) =>
      turn.marker === undefined ? -1 : tokenizer.tokens.indexOf(turn.marker),
    ),
    markerDimension: (turn: number): number => turn,
    turnDimension: (turn: number): number => markerCount + turn,
    fillerDimension,
    predecessorDimension,
    successorDimension,
  };
}

function scriptedSteps(turns: ScriptedTurns, tokenizer: ByteTokenizer): ScriptedStep[] {
  const steps = new Map<string, ScriptedStep>();
  turns.forEach((turn, index) => {
    const ids = turn.tokens.map((piece) => tokenId(tokenizer, piece));
    for (let position = 0; position + 1 < ids.length; position++) {
      const from = ids[position] ?? 0;
      const to = ids[position + 1] ?? 0;
      const key = `${index}:${from}`;
      const earlier = steps.get(key);
      if (earlier !== undefined && earlier.to !== to) {
        throw new SparkError(
          "invalid_request",
          `Turn ${index + 1} of the script follows ${JSON.stringify(turn.tokens[position])} with ` +
            "two different tokens; split the text so that each token has one successor per turn.",
        );
      }
      steps.set(key, { turn: index, from, to });
    }
  });
  return [...steps.values()];
}

/** An f32 matrix (`rows` rows of `width`) whose rows a callback writes into zeros. */
function rowsTensor(
  name: string,
  width: number,
  rows: number,
  set: (row: Float64Array, index: number) => void,
): GgufTensor {
  const values = new Float64Array(width * rows);
  for (let index = 0; index < rows; index++)
    set(values.subarray(index * width, (index + 1) * width), index);
  return {
    name,
    dimensions: [width, rows],
    type: "f32",
    fillRows: (firstRow, rowCount, target) =>
      target.set(values.subarray(firstRow * width, (firstRow + rowCount) * width)),
  };
}
