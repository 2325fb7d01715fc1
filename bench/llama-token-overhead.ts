// Per-token decode speed of the embedded engine against llama.cpp's own loops, side by side in one
// run on the same GGUF, threads, prompt tokens and sampler chain: Spark's engine on its native loop
// and on node-llama-cpp's, node-llama-cpp's bare evaluate loop, llama.cpp's sampled generation loop
// (the fair anchor, bench/native/sampled-loop.cpp) and llama-bench (decode without sampling: a
// floor). Spark's native loop and the anchor each run twice: sampling on the host, and on llama.cpp's
// backend (Spark's deviceSampling "auto", the anchor's llama_set_sampler). The anchors are compiled at bench time against node-llama-cpp's prebuilt libllama.
// Variants are interleaved and the best of several rounds is kept, so background load hits them
// alike. CPU time per token is printed beside: on a loaded machine wall time mostly says how much
// CPU a process was given, CPU time what each token cost (all threads; read it at one thread).
// On a GPU (--gpu: CUDA; --backend cuda|vulkan; --lavapipe: Vulkan on Mesa's software device, CI's
// stand-in) every variant runs on that backend with all layers offloaded, the anchors linked
// against node-llama-cpp's package for it (bench/gpu-check.sh carries them prebuilt).
// Usage: npx tsx bench/llama-token-overhead.ts [--shapes tiny,0.5b] [--model file.gguf]
//   [--tokens N] [--threads 1,2] [--temperatures 0,0.7] [--rounds 3] [--no-llama-bench]
//   [--gpu | --backend cuda|vulkan | --lavapipe]
import { parseArgs } from "node:util";
import type { LlamaModel, Token } from "node-llama-cpp";
import { collectStream } from "../src/engines/collect-stream.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { DeviceSamplingMode } from "../src/engines/llama-cpp/native-loop/device-sampling-mode.ts";
import type { DecodeLoop } from "../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { getSharedLlamaBackend, type GpuSetting } from "../src/engines/llama-cpp/llama-backend.ts";
import { benchBackendOptions, benchGpuSetting } from "./lib/bench-backend.ts";
import { keepBest } from "./lib/best-of-rounds.ts";
import { measureHostSampling } from "./lib/native-sampling-time.ts";
import { benchModels, decodeBenchOptions } from "./lib/shape-models.ts";
import {
  buildLlamaBench,
  buildNativeAnchor,
  runLlamaBench,
  runNativeAnchor,
  type AnchorBackend,
  type AnchorSample,
  type NativeAnchor,
} from "./lib/native-anchor.ts";

type Sample = AnchorSample;

const { values } = parseArgs({
  options: {
    ...decodeBenchOptions({ shapes: "tiny,0.5b", threads: "1,2" }),
    temperatures: { type: "string", default: "0,0.7" },
    "no-llama-bench": { type: "boolean", default: false },
    ...benchBackendOptions,
  },
});
// The anchors link one prebuilt package: --gpu means CUDA's, and every variant runs on it.
const chosen = benchGpuSetting(values);
const gpuBackend: AnchorBackend | undefined =
  chosen === false ? undefined : chosen === "auto" ? "cuda" : (chosen as AnchorBackend);
const gpu: GpuSetting = gpuBackend ?? false;
/** All layers on the GPU: the test models fit any GPU this runs on. */
const GPU_LAYERS = 999;
const rounds = Number(values.rounds);
const threadCounts = values.threads.split(",").map(Number);
const temperatures = values.temperatures.split(",").map(Number);
const PROMPT = "Once upon a time";
const CONTEXT_SIZE = 2048;
const SEED = 1;

interface Setting {
  modelPath: string;
  threads: number;
  temperature: number;
  /** Decode intervals timed: tokens + 1 are generated, first → last token. */
  tokens: number;
  promptTokens: Token[];
}

async function sparkEngine(
  setting: Setting,
  decodeLoop: DecodeLoop,
  deviceSampling: DeviceSamplingMode = "off",
): Promise<Sample> {
  const engine = await createLlamaCppEngine({
    modelPath: setting.modelPath,
    threads: setting.threads,
    sequences: 1,
    contextSize: CONTEXT_SIZE,
    decodeLoop,
    deviceSampling,
    gpu,
  });
  try {
    if (gpu !== false && engine.gpuLayers === 0) {
      throw new Error(`asked for ${gpu}, but no layer is on the GPU`);
    }
    if (engine.decodeLoop !== decodeLoop) {
      throw new Error(`asked for the ${decodeLoop} loop: ${engine.decodeLoopFallbackReason}`);
    }
    let cpuAtFirstToken: NodeJS.CpuUsage | undefined;
    const result = await collectStream(
      (async function* () {
        for await (const event of engine.stream({
          messages: [{ role: "user", content: PROMPT }],
          sampling: {
            temperature: setting.temperature,
            seed: SEED,
            maxOutputTokens: setting.tokens + 1,
          },
        })) {
          if (event.type === "text-delta") cpuAtFirstToken ??= process.cpuUsage();
          yield event;
        }
      })(),
    );
    const cpu = process.cpuUsage(cpuAtFirstToken);
    if (result.usage?.outputTokens !== setting.tokens + 1) {
      throw new Error(`generated ${result.usage?.outputTokens} tokens, not ${setting.tokens + 1}`);
    }
    // A row must measure the sampler it is named after.
    const expected =
      decodeLoop !== "native" ? undefined : deviceSampling === "off" ? "host" : "device";
    if (result.timings?.sampling !== expected) {
      throw new Error(`sampled on ${result.timings?.sampling ?? "?"}, not ${expected ?? "-"}`);
    }
    return {
      tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
      cpuMicrosecondsPerToken: (cpu.user + cpu.system) / setting.tokens,
    };
  } finally {
    await engine.dispose();
  }
}

async function bareEvaluate(model: LlamaModel, setting: Setting): Promise<Sample> {
  const context = await model.createContext({
    contextSize: CONTEXT_SIZE,
    threads: setting.threads,
    sequences: 1,
  });
  try {
    let produced = 0;
    let firstAt = 0;
    let cpuAtFirstToken = process.cpuUsage();
    for await (const _token of context.getSequence().evaluate(setting.promptTokens, {
      temperature: setting.temperature,
      seed: SEED,
    })) {
      if (produced === 0) {
        firstAt = performance.now();
        cpuAtFirstToken = process.cpuUsage();
      }
      produced += 1;
      if (produced > setting.tokens) break;
    }
    const cpu = process.cpuUsage(cpuAtFirstToken);
    return {
      tokensPerSecond: (setting.tokens * 1000) / (performance.now() - firstAt),
      cpuMicrosecondsPerToken: (cpu.user + cpu.system) / setting.tokens,
    };
  } finally {
    await context.dispose();
  }
}

/** The chat-templated prompt Spark's engine evaluates, so every variant decodes the same tokens. */
async function sparkPromptTokens(modelPath: string): Promise<Token[]> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads: 1,
    sequences: 1,
    contextSize: CONTEXT_SIZE,
    decodeLoop: "node-llama-cpp",
    gpu,
  });
  const tokens = engine.tokenizePrompt([{ type: "user", text: PROMPT }]);
  await engine.dispose();
  return tokens;
}

const anchor = await buildNativeAnchor(gpuBackend);
let llamaBench: NativeAnchor | undefined;
if (!values["no-llama-bench"]) {
  llamaBench = await buildLlamaBench(gpuBackend).catch((error: unknown) => {
    console.log(`llama-bench not built, its column is left out: ${String(error).split("\n")[0]}`);
    return undefined;
  });
}
const models = await benchModels(values);

// The engine's own backend opener, so the bare loop runs on the very llama.cpp the engine does.
const { llama } = await getSharedLlamaBackend(gpu);
const gpuLayers = gpu === false ? 0 : GPU_LAYERS;
const summary: string[] = [];
const samplingRows: string[] = [];
console.log(
  `best of ${rounds} interleaved rounds, prompt "${PROMPT}" in the chat template, ` +
    (llama.gpu === false
      ? "CPU backend"
      : `${llama.gpu} (${(await llama.getGpuDeviceNames()).join(", ")}), all layers offloaded`),
);
for (const entry of models) {
  const model = await llama.loadModel({ modelPath: entry.path, gpuLayers });
  const promptTokens = await sparkPromptTokens(entry.path);
  for (const threads of threadCounts) {
    const best = new Map<string, Sample>();
    const keep = (name: string, sample: Sample): void => keepBest(best, name, sample);
    for (let round = 0; round < rounds; round += 1) {
      for (const temperature of temperatures) {
        const setting = {
          modelPath: entry.path,
          threads,
          temperature,
          tokens: entry.tokens,
          promptTokens,
        };
        const label = temperature <= 0 ? "greedy" : `t=${temperature}`;
        const anchorRun = { ...setting, tokens: entry.tokens + 1, seed: SEED, gpuLayers };
        keep(`anchor|${label}`, await runNativeAnchor(anchor, anchorRun));
        keep(
          `anchor-device|${label}`,
          await runNativeAnchor(anchor, { ...anchorRun, backendSampling: true }),
        );
        keep(`native|${label}`, await sparkEngine(setting, "native"));
        keep(`native-device|${label}`, await sparkEngine(setting, "native", "on"));
        keep(`node-llama-cpp|${label}`, await sparkEngine(setting, "node-llama-cpp"));
        keep(`bare|${label}`, await bareEvaluate(model, setting));
      }
      if (llamaBench !== undefined) {
        const options = { modelPath: entry.path, threads, tokens: entry.tokens, gpuLayers };
        const tokensPerSecond = await runLlamaBench(llamaBench, options);
        keep("llama-bench", { tokensPerSecond, cpuMicrosecondsPerToken: Number.NaN });
      }
    }
    printSetting(entry.label, threads, entry.tokens, best);
  }
  await model.dispose();
  // Where a host-sampled token's time goes: the sampler's own time on the decode thread.
  for (const time of await measureHostSampling({
    modelPath: entry.path,
    promptTokens,
    temperatures,
    threads: threadCounts[0] ?? 1,
    tokens: entry.tokens,
    rounds,
    gpu,
  })) {
    samplingRows.push(
      `| ${entry.label} | ${time.temperature <= 0 ? "greedy" : `t=${time.temperature}`} | ` +
        `${time.microsecondsPerSample.toFixed(1)} | ${time.topKFallbacks} of ${time.samples} |`,
    );
  }
}
console.log(
  "\n| model | threads | sampler | Spark native, host sampling | Spark native, device sampling | " +
    "Spark, node-llama-cpp loop | anchor, host sampling | anchor, backend sampling | " +
    "llama-bench tg | native host ÷ anchor host | native device ÷ anchor host | " +
    "native device ÷ native host | native ÷ anchor, CPU per token |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const line of summary) console.log(line);
console.log(
  "\nHost sampling on the native loop's decode thread (plain jobs, device sampling off): " +
    "µs per sample, and samples whose top-k ties sent it to llama.cpp's sort of the whole vocabulary",
);
console.log("| model | sampler | µs per sample | top-k ties → whole-vocabulary sort |");
console.log("|---|---|---|---|");
for (const line of samplingRows) console.log(line);

function printSetting(label: string, threads: number, tokens: number, best: Map<string, Sample>) {
  console.log(`\n${label}, ${threads} thread(s), ${tokens} tokens timed`);
  console.log("sampler | variant | tokens/s | ms/token | CPU µs/token | tokens/s vs anchor");
  const floor = best.get("llama-bench")?.tokensPerSecond;
  for (const temperature of temperatures) {
    const sampler = temperature <= 0 ? "greedy" : `t=${temperature}`;
    const sample = (variant: string): Sample =>
      best.get(`${variant}|${sampler}`) ?? { tokensPerSecond: 0, cpuMicrosecondsPerToken: 0 };
    const anchorSample = sample("anchor");
    for (const [variant, name] of [
      ["anchor", "llama.cpp sampled loop (anchor)"],
      ["anchor-device", "llama.cpp sampled loop, backend sampling"],
      ["native", "Spark engine, native loop, host sampling"],
      ["native-device", "Spark engine, native loop, device sampling"],
      ["node-llama-cpp", "Spark engine, node-llama-cpp loop"],
      ["bare", "node-llama-cpp bare evaluate"],
    ] as const) {
      const { tokensPerSecond, cpuMicrosecondsPerToken } = sample(variant);
      console.log(
        `${sampler} | ${name} | ${tokensPerSecond.toFixed(0)} | ${(1000 / tokensPerSecond).toFixed(3)} | ` +
          `${cpuMicrosecondsPerToken.toFixed(0)} | ${(tokensPerSecond / anchorSample.tokensPerSecond).toFixed(2)}×`,
      );
    }
    const native = sample("native");
    const device = sample("native-device");
    const ratio = (over: Sample, under: Sample): string =>
      `${(over.tokensPerSecond / under.tokensPerSecond).toFixed(2)}×`;
    summary.push(
      `| ${label} | ${threads} | ${sampler} | ${native.tokensPerSecond.toFixed(0)} | ` +
        `${device.tokensPerSecond.toFixed(0)} | ${sample("node-llama-cpp").tokensPerSecond.toFixed(0)} | ` +
        `${anchorSample.tokensPerSecond.toFixed(0)} | ${sample("anchor-device").tokensPerSecond.toFixed(0)} | ` +
        `${floor === undefined ? "–" : floor.toFixed(0)} | ` +
        `${ratio(native, anchorSample)} | ${ratio(device, anchorSample)} | ${ratio(device, native)} | ` +
        // Lower CPU per token is better: the anchor's over Spark's, so ≥ 1 reads the same way.
        `${(anchorSample.cpuMicrosecondsPerToken / native.cpuMicrosecondsPerToken).toFixed(2)}× |`,
    );
  }
  if (floor !== undefined) {
    console.log(
      `- | llama-bench tg (no sampling) | ${floor.toFixed(0)} | ${(1000 / floor).toFixed(3)} | – | –`,
    );
  }
}
