// Decode speed of tool turns (every agent and Codex turn carries tools) on the embedded engine's
// two loops, side by side in one run on the same GGUF and threads: the text a tool turn writes
// before any call (tool_choice auto; the noise model never opens a call) and a call's JSON sampled
// under the tools' grammar (tool_choice required, a free-text `content` argument). Spark's native
// loop against node-llama-cpp's LlamaChat (text) and grammar-constrained evaluate (call), and for
// the call the native loop as it was, paying a pass over the whole vocabulary for every sample
// the grammar refused (grammarSearch "full-vocabulary"). Best of interleaved rounds; CPU time per
// output token beside (read it at one thread). Besides the noise models (the worst case: their
// call spells its JSON's keys one refused character at a time), a scripted tiny model that
// writes the call's JSON itself, as a trained model does (`--script none` leaves it out).
// Usage: npx tsx bench/tool-turn-decode.ts [--shapes tiny,0.5b] [--model file.gguf] [--tokens N]
//   [--threads 1] [--rounds 3] [--script json|none] [--gpu]   (--gpu: the GPU node-llama-cpp
//   finds, every layer it fits; the table names the layers offloaded, and a GPU run that offloaded
//   none exits 1)
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../src/engines/engine.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { GrammarSearch } from "../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import type { DecodeLoop } from "../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { ensureTestModel } from "../test/support/test-model.ts";
import { keepBest } from "./lib/best-of-rounds.ts";
import { measureGrammarTime } from "./lib/native-grammar-time.ts";
import { benchModels, decodeBenchOptions, type BenchModel } from "./lib/shape-models.ts";

const { values } = parseArgs({
  options: {
    ...decodeBenchOptions({ shapes: "tiny", threads: "1" }),
    gpu: { type: "boolean", default: false },
    script: { type: "string", default: "json" },
  },
});
const rounds = Number(values.rounds);
const threadCounts = values.threads.split(",").map(Number);
const phases = ["text", "call"] as const;
type Phase = (typeof phases)[number];

/** Who decodes: a loop, and for the native loop's call how a refused sample is drawn again. */
interface Variant {
  loop: DecodeLoop;
  grammarSearch?: GrammarSearch;
}
const variants = {
  native: { loop: "native" },
  "native, full vocabulary": { loop: "native", grammarSearch: "full-vocabulary" },
  "node-llama-cpp": { loop: "node-llama-cpp" },
} satisfies Record<string, Variant>;
type VariantName = keyof typeof variants;
/** The full-vocabulary pass changes nothing without a grammar: text runs the two loops. */
const variantsOf = (phase: Phase): VariantName[] =>
  phase === "text"
    ? ["native", "node-llama-cpp"]
    : ["native", "native, full vocabulary", "node-llama-cpp"];

/**
 * Greedy decoding writes a call's JSON: `{"` at once, then (where its keys and the tool's name
 * need other characters, which the grammar picks) "XYZXYZ…" as the string's content. After the
 * chat template's `assistant\n` (text) it writes the same, as text.
 */
const writesJson = { "\n": "{", "{": '"', '"': "X", X: "Y", Y: "Z", Z: "X" };

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
  variant: Variant,
  threads: number,
  phase: Phase,
  tokens: number,
): Promise<Sample> {
  const { loop, grammarSearch } = variant;
  const engine = await createLlamaCppEngine({
    modelPath,
    threads,
    sequences: 1,
    contextSize: 4096,
    decodeLoop: loop,
    gpu: values.gpu ? "auto" : false,
    ...(grammarSearch === undefined ? {} : { grammarSearch }),
  });
  try {
    if (values.gpu && engine.gpuLayers === 0) {
      throw new Error("--gpu: no layer was offloaded (no GPU found, or its backend did not load)");
    }
    layersOffloaded = engine.gpuLayers;
    if (engine.toolDecodeLoop !== loop) {
      throw new Error(`asked for tool turns on the ${loop} loop: ${engine.toolLoopFallbackReason}`);
    }
    // A one-token turn first: the prompt (tools included) evaluates once and the timed turn reuses
    // it from the cache, and what an engine does once per tool set (node-llama-cpp compiling the
    // tools' grammar, the native loop's vocabulary prefix tree on its first refused sample) is
    // done. The timed turn is then the steady state: one prompt token and the decode
    // (node-llama-cpp's forced call shows nothing until its end, so there is no first event to
    // start from).
    const warmUp = await collectStream(engine.stream(request(phase, 1)));
    if (warmUp.error !== undefined) throw warmUp.error;
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

const models: BenchModel[] = await benchModels(values);
if (values.script === "json" && values.model === undefined) {
  models.push({
    label: "tiny, scripted JSON",
    path: await ensureTestModel({ successors: writesJson }),
    tokens: Number(values.tokens ?? 256),
  });
}

const table: string[] = [];
const targets: string[] = [];
const cell = (sample: Sample | undefined): string =>
  sample === undefined
    ? "–"
    : `${sample.tokensPerSecond.toFixed(0)} (${sample.outputTokens} tokens)`;
const cpuCell = (sample: Sample | undefined): string =>
  sample === undefined ? "–" : sample.cpuMicrosecondsPerToken.toFixed(0);
console.log(`best of ${rounds} interleaved rounds, greedy, the prompt cached before each turn`);
for (const entry of models) {
  for (const threads of threadCounts) {
    const best = new Map<string, Sample>();
    for (let round = 0; round < rounds; round += 1) {
      for (const phase of phases) {
        for (const name of variantsOf(phase)) {
          const sample = await measure(entry.path, variants[name], threads, phase, entry.tokens);
          keepBest(best, `${phase}|${name}`, sample);
        }
      }
    }
    const where = values.gpu ? `GPU, ${layersOffloaded} layers` : String(threads);
    for (const phase of phases) {
      const native = best.get(`${phase}|native`);
      const full = best.get(`${phase}|native, full vocabulary`);
      const fallback = best.get(`${phase}|node-llama-cpp`);
      const ratio =
        native === undefined || fallback === undefined
          ? "–"
          : `${(native.tokensPerSecond / fallback.tokensPerSecond).toFixed(2)}×`;
      table.push(
        `| ${entry.label} | ${where} | ${phase === "text" ? "text before a call (auto)" : "call JSON under the grammar"} | ` +
          `${cell(native)} | ${cell(full)} | ${cell(fallback)} | ${ratio} | ` +
          `${cpuCell(native)} / ${cpuCell(full)} / ${cpuCell(fallback)} |`,
      );
    }
    const text = best.get("text|native");
    const call = best.get("call|native");
    const full = best.get("call|native, full vocabulary");
    if (text !== undefined && call !== undefined && full !== undefined) {
      // The grammar's own CPU per token: the call's CPU beyond the text's (the same forward pass).
      const extra = (sample: Sample): string =>
        `${((sample.cpuMicrosecondsPerToken - text.cpuMicrosecondsPerToken) / 1000).toFixed(2)} ms`;
      targets.push(
        `| ${entry.label} | ${where} | ${(call.tokensPerSecond / text.tokensPerSecond).toFixed(2)}× | ` +
          `${(full.tokensPerSecond / text.tokensPerSecond).toFixed(2)}× | ${extra(call)} | ${extra(full)} |`,
      );
    }
  }
}
console.log(
  "\n| model | threads (or GPU) | tool-turn phase | native loop tokens/s | native loop, full-vocabulary pass per refusal, tokens/s | " +
    "node-llama-cpp loop tokens/s | native ÷ node-llama-cpp | CPU µs per output token, native / full vocabulary / node-llama-cpp |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const line of table) console.log(line);
console.log(
  "\nTargets: call JSON ÷ text ≥ 0.8× (scripted model); grammar CPU per call token ≤ 2 ms (0.5B noise model, the worst case).",
);
console.log(
  "| model | threads (or GPU) | call ÷ text, native | call ÷ text, full-vocabulary pass | " +
    "grammar CPU per call token (call − text), native | the same, full-vocabulary pass |",
);
console.log("|---|---|---|---|---|---|");
for (const line of targets) console.log(line);

// The grammar's own time per call token, timed on the decode thread, on the engines' backend (a
// process binds the native loop to one llama.cpp; a GPU's logits may tie where the CPU's do not).
const grammarRows: string[] = [];
for (const entry of models) {
  const times = await measureGrammarTime({
    modelPath: entry.path,
    tools,
    threads: threadCounts[0] ?? 1,
    tokens: entry.tokens,
    rounds,
    gpu: values.gpu ? "auto" : false,
  });
  for (const time of times) {
    const { top, prefixes, vocabulary } = time.resamples;
    grammarRows.push(
      `| ${entry.label} | ${time.sampling} | ${time.search} | ${time.microsecondsPerToken.toFixed(0)} | ` +
        `${time.tokens} | ${top} / ${prefixes} / ${vocabulary} |`,
    );
  }
}
console.log(
  "\nThe grammar's time per call token on the native decode thread (checks, samples drawn again, accepts), " +
    "a call sampled straight after a newline; target ≤ 2,000 µs on the 0.5B noise model.",
);
console.log(
  "| model | sampling | grammar search | grammar µs per call token | tokens | refused samples settled among top candidates / by the prefix walk / over the vocabulary |",
);
console.log("|---|---|---|---|---|---|");
for (const line of grammarRows) console.log(line);
