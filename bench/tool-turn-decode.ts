// Decode speed of tool turns (every agent and Codex turn carries tools) on the embedded engine's
// two loops, side by side in one run on the same GGUF and threads: the text a tool turn writes
// before any call (tool_choice auto; the noise model never opens a call) and a call's JSON sampled
// under the tools' grammar (tool_choice required, a free-text `content` argument). Spark's native
// loop against node-llama-cpp's LlamaChat (text) and grammar-constrained evaluate (call), best of
// interleaved rounds; CPU time per output token beside (read it at one thread).
// Usage: npx tsx bench/tool-turn-decode.ts [--shapes tiny,0.5b] [--model file.gguf] [--tokens N]
//   [--threads 1] [--rounds 3] [--gpu]   (--gpu: the GPU node-llama-cpp finds, every layer it fits;
//   the table names the layers offloaded, and a GPU run that offloaded none exits 1)
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../src/engines/engine.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { DecodeLoop } from "../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { keepBest } from "./lib/best-of-rounds.ts";
import { benchModels, decodeBenchOptions } from "./lib/shape-models.ts";

const { values } = parseArgs({
  options: {
    ...decodeBenchOptions({ shapes: "tiny", threads: "1" }),
    gpu: { type: "boolean", default: false },
  },
});
const rounds = Number(values.rounds);
const threadCounts = values.threads.split(",").map(Number);
const loops: DecodeLoop[] = ["native", "node-llama-cpp"];
const phases = ["text", "call"] as const;
type Phase = (typeof phases)[number];

const tools: ToolDefinition[] = [
  {
    name: "write_note",
    description: "Write a note",
    parameters: {
      type: "object",
      properties: { content: { type: "string" } },
      required: ["content"],
    },
  },
  {
    name: "read_file",
    description: "Read a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

/** Layers on the GPU in the last engine (0 on the CPU). */
let layersOffloaded = 0;

interface Sample {
  tokensPerSecond: number;
  cpuMicrosecondsPerToken: number;
  outputTokens: number;
}

function request(phase: Phase, tokens: number): EngineRequest {
  return {
    messages: [{ role: "user", content: "Write a long note about compilers." }],
    tools,
    toolChoice: phase === "call" ? { name: "write_note" } : "auto",
    sampling: { temperature: 0, maxOutputTokens: tokens },
  };
}

async function measure(
  modelPath: string,
  loop: DecodeLoop,
  threads: number,
  phase: Phase,
  tokens: number,
): Promise<Sample> {
  const engine = await createLlamaCppEngine({
    modelPath,
    threads,
    sequences: 1,
    contextSize: 4096,
    decodeLoop: loop,
    gpu: values.gpu ? "auto" : false,
  });
  try {
    if (values.gpu && engine.gpuLayers === 0) {
      throw new Error("--gpu: no layer was offloaded (no GPU found, or its backend did not load)");
    }
    layersOffloaded = engine.gpuLayers;
    if (engine.toolDecodeLoop !== loop) {
      throw new Error(`asked for tool turns on the ${loop} loop: ${engine.toolLoopFallbackReason}`);
    }
    // The prompt (tools included) evaluates once; the timed turn reuses it from the cache.
    await collectStream(engine.stream({ ...request(phase, tokens), prefillOnly: true }));
    // The whole turn: with the prompt cached it is one prompt token and the decode (node-llama-cpp's
    // forced call shows nothing until its end, so there is no first event to start from).
    const cpuAtStart = process.cpuUsage();
    const result = await collectStream(engine.stream(request(phase, tokens)));
    const cpu = process.cpuUsage(cpuAtStart);
    if (result.error !== undefined) throw result.error;
    const outputTokens = result.usage?.outputTokens ?? 0;
    return {
      tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
      cpuMicrosecondsPerToken: (cpu.user + cpu.system) / Math.max(1, outputTokens),
      outputTokens,
    };
  } finally {
    await engine.dispose();
  }
}

const models = await benchModels(values);

const summary: string[] = [];
console.log(`best of ${rounds} interleaved rounds, greedy, the prompt cached before each turn`);
for (const entry of models) {
  for (const threads of threadCounts) {
    const best = new Map<string, Sample>();
    for (let round = 0; round < rounds; round += 1) {
      for (const phase of phases) {
        for (const loop of loops) {
          const sample = await measure(entry.path, loop, threads, phase, entry.tokens);
          keepBest(best, `${phase}|${loop}`, sample);
        }
      }
    }
    for (const phase of phases) {
      const native = best.get(`${phase}|native`);
      const fallback = best.get(`${phase}|node-llama-cpp`);
      if (native === undefined || fallback === undefined) continue;
      summary.push(
        `| ${entry.label} | ${values.gpu ? `GPU, ${layersOffloaded} layers` : threads} | ${phase === "text" ? "text before a call (auto)" : "call JSON under the grammar"} | ` +
          `${native.tokensPerSecond.toFixed(0)} (${native.outputTokens} tokens) | ` +
          `${fallback.tokensPerSecond.toFixed(0)} (${fallback.outputTokens} tokens) | ` +
          `${(native.tokensPerSecond / fallback.tokensPerSecond).toFixed(2)}× | ` +
          `${native.cpuMicrosecondsPerToken.toFixed(0)} / ${fallback.cpuMicrosecondsPerToken.toFixed(0)} |`,
      );
    }
  }
}
console.log(
  "\n| model | threads (or GPU) | tool-turn phase | native loop tokens/s | node-llama-cpp loop tokens/s | " +
    "native ÷ node-llama-cpp | CPU µs per output token, native / node-llama-cpp |",
);
console.log("|---|---|---|---|---|---|---|");
for (const line of summary) console.log(line);
