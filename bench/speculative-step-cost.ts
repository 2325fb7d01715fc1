// What one speculative step costs against one plain token, on one GGUF, on both decode loops:
// node-llama-cpp's evaluate loop per token vs verifying a batch of k tokens with a sample at every
// position (what src/engines/llama-cpp/speculative-decode.ts sends), and the same two on Spark's
// native loop (a plain job; a speculative job whose every draft is rejected, so each step is one
// batch of k), interleaved, best of N rounds, wall and process CPU time, on the CPU or on the
// GPU backend node-llama-cpp loads (both loops, the native one bound to that very libllama). With
// --acceptance (a scenario 4 JSON) it projects prompt lookup's effective tokens/s on this model
// from that run's drafts and acceptance, at each loop's costs: a projection, not a measurement.
// Usage: npx tsx bench/speculative-step-cost.ts [--model f.gguf | --shape 1.5b --type q8_0]
//        [--threads 1] [--gpu | --backend cuda|vulkan | --lavapipe] [--rounds 3]
//        [--acceptance bench/results/…-speculative-edits.json]
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import type { LlamaContextSequence, Token } from "node-llama-cpp";
import type { GgufTensorType } from "../src/engines/llama-cpp/gguf/tensor-encoding.ts";
import type { TestModelShapeName } from "../src/engines/llama-cpp/gguf/test-model-shapes.ts";
import { getSharedLlamaBackend } from "../src/engines/llama-cpp/llama-backend.ts";
import type { NativeSequence } from "../src/engines/llama-cpp/native-loop/native-sequence.ts";
import { openNativeLoop } from "../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { ensureTestModel } from "../test/support/test-model.ts";
import { formatTable } from "./lib/print-table.ts";
import { benchBackendOptions, benchGpuSetting } from "./lib/bench-backend.ts";
import { readAcceptance, projectSpeedUp, type StepCost } from "./lib/speculation-projection.ts";
import { round } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    model: { type: "string" },
    shape: { type: "string" },
    type: { type: "string" },
    threads: { type: "string", default: "1" },
    ...benchBackendOptions,
    rounds: { type: "string", default: "3" },
    acceptance: { type: "string" },
    context: { type: "string", default: "1024" },
    "flash-attention": { type: "boolean", default: false },
  },
});
const modelPath =
  values.model ??
  (await ensureTestModel({
    shape: (values.shape ?? "tiny") as TestModelShapeName,
    ...(values.type === undefined ? {} : { type: values.type as GgufTensorType }),
  }));
const rounds = Number(values.rounds);
const threads = Number(values.threads);
/** Tokens already in the KV cache when a step runs: an edit's prompt is about this long. */
const contextTokens = Number(values.context);
const batchSizes = [1, 2, 3, 5, 9, 17, 33];
const plainTokens = 32;

const gpu = benchGpuSetting(values);
// Spark's own backend opener: the native loop binds to the llama.cpp it loaded.
const backend = await getSharedLlamaBackend(gpu);
const { llama } = backend;
const model = await llama.loadModel({ modelPath });
/** Layers node-llama-cpp put on the GPU ("auto": what fits); the native loop puts the same. */
const gpuLayers = llama.gpu === false ? 0 : model.gpuLayers;
const context = await model.createContext({
  contextSize: contextTokens + 256,
  sequences: 1,
  flashAttention: values["flash-attention"],
  ...(gpuLayers > 0 ? {} : { threads }),
});
const sequence = context.getSequence();
const filler = model.tokenize(
  (await readFile(new URL("fixtures/edit-tasks/stop-matcher.ts.txt", import.meta.url), "utf8"))
    .repeat(8)
    .slice(0, contextTokens * 8),
);
await sequence.controlledEvaluate(filler.slice(0, contextTokens));
const options = { temperature: 0, seed: 1 };

const cpuMilliseconds = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function eraseBackTo(sequence: LlamaContextSequence, length: number): Promise<void> {
  await sequence.eraseContextTokenRanges([{ start: length, end: sequence.nextTokenIndex }]);
}

/** Times plainTokens tokens after the first (one step each), then stops the generator. */
async function timeStepsAfterFirst(
  tokens: AsyncIterable<Token>,
  tokensPerStep: number,
): Promise<StepCost> {
  let produced = 0;
  let startedAt = 0;
  let cpuAtStart = 0;
  for await (const _token of tokens) {
    if (produced === 0) {
      startedAt = performance.now();
      cpuAtStart = cpuMilliseconds();
    }
    produced += 1;
    if (produced > plainTokens) break;
  }
  return {
    tokens: tokensPerStep,
    wallMs: (performance.now() - startedAt) / plainTokens,
    cpuMs: (cpuMilliseconds() - cpuAtStart) / plainTokens,
  };
}

/** One plain token: node-llama-cpp's evaluate loop (decode, then sample), as the engine runs it. */
async function plainStep(): Promise<StepCost> {
  const cost = await timeStepsAfterFirst(
    sequence.evaluate([filler[contextTokens] as Token], options),
    1,
  );
  await eraseBackTo(sequence, contextTokens);
  return cost;
}

/** One verification batch of `size` tokens (the pending token + size − 1 drafted), sampled at each. */
async function verifyStep(size: number): Promise<StepCost> {
  const batch = filler.slice(contextTokens, contextTokens + size);
  const repeats = 4;
  const startedAt = performance.now();
  const cpuAtStart = cpuMilliseconds();
  for (let repeat = 0; repeat < repeats; repeat += 1) {
    await sequence.controlledEvaluate(
      batch.map((token) => [token, { generateNext: { token: true, options } }] as const),
    );
    await eraseBackTo(sequence, contextTokens);
  }
  return {
    tokens: size,
    wallMs: (performance.now() - startedAt) / repeats,
    cpuMs: (cpuMilliseconds() - cpuAtStart) / repeats,
  };
}

// Spark's native loop on its own context (calling node-llama-cpp's libllama, loaded above, on
// whichever backend that is), with the engine's threads: all math cores when layers are offloaded.
const nativeLoop = await openNativeLoop("native", backend, {
  modelPath,
  contextSize: contextTokens + 256,
  sequences: 1,
  threads: gpuLayers > 0 ? llama.cpuMathCores : threads,
  batchSize: 512,
  gpuLayers,
  flashAttention: values["flash-attention"],
});
if (nativeLoop.native === undefined) {
  process.stderr.write(`native loop rows skipped: ${nativeLoop.reason}\n`);
}
const nativeSequence: NativeSequence | undefined = (
  await nativeLoop.native?.pool.acquire(undefined, undefined)
)?.sequence;
await nativeSequence?.prefill(filler.slice(0, contextTokens + 1));

/**
 * One native step: `size` 1 is a plain job's token; larger sizes are a speculative job drafting
 * size − 1 tokens that are never what the model samples, so every step verifies a batch of `size`
 * and keeps one token. Timed over plainTokens steps after the first token.
 */
async function nativeStep(sequence: NativeSequence, size: number): Promise<StepCost> {
  const wrong = filler.slice(0, size - 1).map(() => 0 as Token);
  const job = sequence.tokens(filler.slice(0, contextTokens + 1), {
    // Room beyond the tokens timed: a draft is cut short near max_tokens.
    maxTokens: plainTokens + 64,
    sampling: { temperature: 0, seed: 1 },
    defaultTemperature: 0,
    ...(size === 1 ? {} : { speculation: { record: () => {}, nextDraft: () => wrong } }),
  });
  // Every draft is rejected: one token per step.
  return timeStepsAfterFirst(job.tokens, size);
}

const best = new Map<string, StepCost>();
const keep = (key: string, cost: StepCost) => {
  const previous = best.get(key);
  if (previous === undefined || cost.wallMs < previous.wallMs) best.set(key, cost);
};
for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
  keep("plain", await plainStep());
  for (const size of batchSizes) keep(`verify ${size}`, await verifyStep(size));
  if (nativeSequence !== undefined) {
    for (const size of batchSizes) keep(`native ${size}`, await nativeStep(nativeSequence, size));
  }
  process.stderr.write(`round ${roundIndex + 1} of ${rounds} done\n`);
}
const plain = best.get("plain") as StepCost;
const verify = batchSizes.map((size) => best.get(`verify ${size}`) as StepCost);

console.log(
  `\n${modelPath}\n${llama.gpu === false ? `CPU, ${threads} thread(s)` : `GPU (${llama.gpu}: ${(await llama.getGpuDeviceNames()).join(", ")}), ${gpuLayers} layers offloaded`}, ${contextTokens} tokens in the KV cache${values["flash-attention"] ? ", flash attention" : ""}, best of ${rounds} rounds\n`,
);
const native =
  nativeSequence === undefined
    ? []
    : batchSizes.map((size) => best.get(`native ${size}`) as StepCost);
printTable(
  "Per step",
  ["step", "tokens", "wall ms", "CPU ms", "wall ms per token", "× one plain token (wall)"],
  [plain, ...verify, ...native].map((cost, index) => [
    index === 0
      ? "node-llama-cpp: plain decode (per token)"
      : index <= verify.length
        ? `node-llama-cpp: verify batch of ${cost.tokens}`
        : cost.tokens === 1
          ? "native loop: plain decode (per token)"
          : `native loop: verify batch of ${cost.tokens}`,
    cost.tokens,
    round(cost.wallMs, 3),
    round(cost.cpuMs, 3),
    round(cost.wallMs / cost.tokens, 3),
    round(cost.wallMs / plain.wallMs, 2),
  ]),
);

if (values.acceptance !== undefined) {
  const acceptance = await readAcceptance(values.acceptance);
  console.log(
    `\nPROJECTION (not measured): prompt lookup priced at this model's step costs, with the drafts and acceptance of ${values.acceptance}`,
  );
  const loops: Array<{ name: string; plain: StepCost; verify: StepCost[] }> = [
    { name: "node-llama-cpp", plain, verify },
  ];
  const nativePlain = native[0];
  if (nativePlain !== undefined)
    loops.push({ name: "native loop", plain: nativePlain, verify: native });
  printTable(
    "Projection",
    [
      "loop",
      "clock",
      "output tokens",
      "draft steps",
      "plain steps",
      "mean draft",
      "accepted",
      "tokens/step",
      "plain tokens/s",
      "projected tokens/s",
      "speed-up",
    ],
    loops.flatMap((loop) =>
      (["wallMs", "cpuMs"] as const).map((clock) => {
        const projection = projectSpeedUp(acceptance, loop.plain, loop.verify, clock);
        return [
          loop.name,
          clock === "wallMs" ? "wall" : "CPU",
          acceptance.outputTokens,
          acceptance.drafts,
          projection.plainSteps,
          round(projection.meanDraftTokens, 1),
          acceptance.acceptedTokens,
          round(projection.tokensPerStep, 2),
          round(1000 / loop.plain[clock], 1),
          round(projection.tokensPerSecond, 1),
          round(projection.speedUp, 2),
        ];
      }),
    ),
  );
}
nativeLoop.native?.dispose();
await context.dispose();
await model.dispose();

function printTable(title: string, columns: string[], rows: Array<Array<string | number>>): void {
  console.log(formatTable({ title, columns, rows }));
}
