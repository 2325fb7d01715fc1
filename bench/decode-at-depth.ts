// Decode speed deep in a conversation (issue 35's target: ≥ 0.95× llama-bench at 6k tokens of
// depth), side by side in one run on the same GGUF and threads: Spark's engine on its native loop
// (greedy, host sampling), with the prefix cache off and on (on: the prompt's system prefix and turn
// are saved meanwhile), against llama-bench's `tg` at the same depth (`-d`: decode without sampling,
// a floor). Spark's prompt is a chat whose template renders to the depth; tokens/s are tokens
// after the first ÷ first → last token. Variants interleave; the best round of each counts.
// Usage: npx tsx bench/decode-at-depth.ts [--model file.gguf | --shapes 0.5b] [--depth 6144]
//   [--tokens 64] [--threads 1,2] [--rounds 1]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { getSharedLlamaBackend } from "../src/engines/llama-cpp/llama-backend.ts";
import { keepBest, type DecodeSample } from "./lib/best-of-rounds.ts";
import { readCorpus } from "./lib/conversation-corpus.ts";
import { buildLlamaBench, runLlamaBench } from "./lib/native-anchor.ts";
import { benchModels, decodeBenchOptions } from "./lib/shape-models.ts";

const { values } = parseArgs({
  options: {
    ...decodeBenchOptions({ shapes: "0.5b", threads: "1,2" }),
    depth: { type: "string", default: "6144" },
  },
});
const depth = Number(values.depth);
const rounds = Number(values.rounds === "3" ? 1 : values.rounds);
const threadCounts = values.threads.split(",").map(Number);
const models = await benchModels({ ...values, tokens: values.tokens ?? "64" });
const llamaBench = await buildLlamaBench();
const llama = (await getSharedLlamaBackend(false)).llama;

/** A user message whose chat-templated prompt is `depth` tokens, give or take the template's. */
async function messageOfDepth(modelPath: string): Promise<string> {
  const model = await llama.loadModel({ modelPath, vocabOnly: true });
  try {
    const corpus = await readCorpus(depth * 8);
    const tokens = model.tokenize(corpus).slice(0, depth - 24);
    return model.detokenize(tokens);
  } finally {
    await model.dispose();
  }
}

async function spark(
  modelPath: string,
  message: string,
  threads: number,
  tokens: number,
  cacheDirectory: string | undefined,
): Promise<DecodeSample & { promptTokens: number }> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads,
    sequences: 1,
    contextSize: depth + tokens + 256,
    decodeLoop: "native",
    deviceSampling: "off",
    gpu: false,
    ...(cacheDirectory === undefined
      ? {}
      : { prefixCache: { directory: cacheDirectory, maxBytes: 8 * 1024 ** 3 } }),
  });
  try {
    const result = await collectStream(
      engine.stream({
        messages: [{ role: "user", content: message }],
        sampling: { temperature: 0, maxOutputTokens: tokens + 1 },
      }),
    );
    if (result.usage?.outputTokens !== tokens + 1)
      throw new Error(`generated ${result.usage?.outputTokens} tokens, not ${tokens + 1}`);
    return {
      tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
      cpuMicrosecondsPerToken: Number.NaN,
      promptTokens: result.usage.inputTokens,
    };
  } finally {
    await engine.dispose();
  }
}

console.log(`decode at depth ${depth}, best of ${rounds} interleaved round(s), CPU backend`);
console.log(
  "| model | threads | prompt tokens | Spark, cache off | Spark, cache on | llama-bench -d | off ÷ llama-bench | on ÷ llama-bench |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const entry of models) {
  const message = await messageOfDepth(entry.path);
  for (const threads of threadCounts) {
    const best = new Map<string, DecodeSample>();
    let promptTokens = 0;
    for (let round = 0; round < rounds; round += 1) {
      const off = await spark(entry.path, message, threads, entry.tokens, undefined);
      promptTokens = off.promptTokens;
      keepBest(best, "off", off);
      const cacheDirectory = await mkdtemp(join(tmpdir(), "spark-bench-depth-"));
      try {
        keepBest(
          best,
          "on",
          await spark(entry.path, message, threads, entry.tokens, cacheDirectory),
        );
      } finally {
        await rm(cacheDirectory, { recursive: true, force: true });
      }
      const options = { modelPath: entry.path, threads, tokens: entry.tokens, depth: promptTokens };
      const tokensPerSecond = await runLlamaBench(llamaBench, options);
      keepBest(best, "llama-bench", { tokensPerSecond, cpuMicrosecondsPerToken: Number.NaN });
    }
    const speed = (name: string): number => best.get(name)?.tokensPerSecond ?? Number.NaN;
    const ratio = (name: string): string => (speed(name) / speed("llama-bench")).toFixed(2);
    console.log(
      `| ${entry.label} | ${threads} | ${promptTokens} | ${speed("off").toFixed(1)} | ${speed("on").toFixed(1)} | ${speed("llama-bench").toFixed(1)} | ${ratio("off")}× | ${ratio("on")}× |`,
    );
  }
}
