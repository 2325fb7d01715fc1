// The shapes of the self-written test models: a few-MB `tiny` for CPU tests and two layouts that
// mirror Qwen2.5-0.5B and Qwen2.5-1.5B for GPU benchmarks (same matrix sizes, random weights).

import type { GgufTensorType } from "./tensor-encoding.ts";

export type TestModelShapeName = "micro" | "wide" | "tiny" | "0.5b" | "1.5b";

export interface TestModelShape {
  name: TestModelShapeName;
  embeddingLength: number;
  blockCount: number;
  headCount: number;
  headCountKv: number;
  feedForwardLength: number;
  contextLength: number;
  vocabularySize: number;
  /** Qwen2.5 up to 3B shares token_embd with the output head (no output.weight tensor). */
  tiedEmbeddings: boolean;
  ropeFreqBase: number;
  rmsNormEpsilon: number;
  defaultType: GgufTensorType;
}

export const testModelShapes: Record<TestModelShapeName, TestModelShape> = {
  /** One narrow layer: attention over a long prompt stays cheap (a real client's 35k-token
   * turn prefills in seconds on a CPU), for protocol tests that need a long context. */
  micro: {
    name: "micro",
    embeddingLength: 64,
    blockCount: 1,
    headCount: 1,
    headCountKv: 1,
    feedForwardLength: 128,
    contextLength: 65536,
    vocabularySize: 320,
    tiedEmbeddings: false,
    ropeFreqBase: 1_000_000,
    rmsNormEpsilon: 1e-6,
    defaultType: "f32",
  },
  /** micro's one narrow layer with a 16,384-token vocabulary: tokens share prefixes several
   * levels deep (the native loop walks them under a grammar), and the file stays ~8 MB. */
  wide: {
    name: "wide",
    embeddingLength: 64,
    blockCount: 1,
    headCount: 1,
    headCountKv: 1,
    feedForwardLength: 128,
    contextLength: 4096,
    vocabularySize: 16384,
    tiedEmbeddings: false,
    ropeFreqBase: 1_000_000,
    rmsNormEpsilon: 1e-6,
    defaultType: "f32",
  },
  tiny: {
    name: "tiny",
    embeddingLength: 256,
    blockCount: 4,
    headCount: 4,
    headCountKv: 2,
    feedForwardLength: 512,
    contextLength: 4096,
    vocabularySize: 320,
    tiedEmbeddings: false,
    ropeFreqBase: 1_000_000,
    rmsNormEpsilon: 1e-6,
    defaultType: "f32",
  },
  "0.5b": {
    name: "0.5b",
    embeddingLength: 896,
    blockCount: 24,
    headCount: 14,
    headCountKv: 2,
    feedForwardLength: 4864,
    contextLength: 32768,
    vocabularySize: 151936,
    tiedEmbeddings: true,
    ropeFreqBase: 1_000_000,
    rmsNormEpsilon: 1e-6,
    defaultType: "f16",
  },
  "1.5b": {
    name: "1.5b",
    embeddingLength: 1536,
    blockCount: 28,
    headCount: 12,
    headCountKv: 2,
    feedForwardLength: 8960,
    contextLength: 32768,
    vocabularySize: 151936,
    tiedEmbeddings: true,
    ropeFreqBase: 1_000_000,
    rmsNormEpsilon: 1e-6,
    defaultType: "f16",
  },
};

export function isTestModelShapeName(value: string): value is TestModelShapeName {
  return Object.hasOwn(testModelShapes, value);
}
