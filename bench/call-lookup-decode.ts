// Prompt lookup inside a tool call on the native loop, plain vs drafted side by side in one run: an
// edit call that copies a file from a tool result (a scripted model whose greedy output copies
// the file's JSON-escaped text into every string argument) and the same call on the noise model,
// which copies nothing (what drafting costs where there is nothing to draft). Same GGUF, threads
// and calls in both modes (checked equal), best of interleaved rounds, the prompt cached first.
// Usage: npx tsx bench/call-lookup-decode.ts [--rounds 3] [--threads 1] [--gpu | --lavapipe]
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { COPIED_FILE, copyingSuccessors } from "../test/support/copying-script.ts";
import { ensureTestModel } from "../test/support/test-model.ts";
import { benchBackendOptions, benchGpuSetting } from "./lib/bench-backend.ts";
import { keepBest } from "./lib/best-of-rounds.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    threads: { type: "string", default: "1" },
    ...benchBackendOptions,
  },
});
const gpu = benchGpuSetting(values);
const modes = ["plain", "drafted"] as const;
type Mode = (typeof modes)[number];

/** An edit with three strings the scripted model fills with the file (bounded for the noise model). */
const editArguments = {
  type: "object",
  properties: Object.fromEntries(
    ["path", "oldText", "newText"].map((name) => [name, { type: "string", maxLength: 120 }]),
  ),
  required: ["path", "oldText", "newText"],
};
const tools: ToolDefinition[] = [
  { name: "edit", description: "Replace text in a file", parameters: editArguments },
];
const request: EngineRequest = {
  messages: [
    { role: "user", content: "Edit f." },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path": "f"}' }],
    },
    { role: "tool", toolCallId: "call_1", name: "read_file", content: COPIED_FILE },
  ],
  tools,
  toolChoice: "required",
  sampling: { temperature: 0, maxOutputTokens: 600 },
};

interface Sample {
  tokensPerSecond: number;
  cpuMicrosecondsPerToken: number;
  outputTokens: number;
  accepted: number;
  rejected: number;
  call: string;
}

async function measure(engine: LlamaCppEngine): Promise<Sample> {
  const cpuAtStart = process.cpuUsage();
  const result = await collectStream(engine.stream(request));
  const cpu = process.cpuUsage(cpuAtStart);
  if (result.error !== undefined) throw result.error;
  const outputTokens = result.usage?.outputTokens ?? 0;
  return {
    tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
    cpuMicrosecondsPerToken: (cpu.user + cpu.system) / Math.max(1, outputTokens),
    outputTokens,
    accepted: result.usage?.acceptedPredictionTokens ?? 0,
    rejected: result.usage?.rejectedPredictionTokens ?? 0,
    call: JSON.stringify(result.toolCalls.map((call) => [call.name, call.arguments])),
  };
}

/**
 * `exact`: the drafted call must equal the plain one. The noise model's near-ties may go the other
 * way on a GPU, where a verified batch's logits differ from one token's in the last bits; there
 * the row says where the calls part instead.
 */
async function compare(label: string, modelPath: string, exact: boolean): Promise<string> {
  const engines = new Map<Mode, LlamaCppEngine>();
  try {
    for (const mode of modes) {
      const engine = await createLlamaCppEngine({
        modelPath,
        threads: Number(values.threads),
        sequences: 1,
        contextSize: 2048,
        gpu,
        toolCallLookup: mode === "drafted",
      });
      engines.set(mode, engine);
      if (engine.toolDecodeLoop !== "native") {
        throw new Error(`tool turns are not on the native loop: ${engine.toolLoopFallbackReason}`);
      }
      await collectStream(engine.stream({ ...request, prefillOnly: true }));
    }
    const best = new Map<Mode, Sample>();
    for (let round = 0; round < Number(values.rounds); round += 1) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        keepBest(best, mode, await measure(engines.get(mode) as LlamaCppEngine));
      }
    }
    const plain = best.get("plain") as Sample;
    const drafted = best.get("drafted") as Sample;
    const onGpu = (engines.get("plain")?.gpuLayers ?? 0) > 0;
    let note = "";
    if (plain.call !== drafted.call) {
      if (exact || !onGpu) throw new Error(`${label}: drafting changed the call`);
      let same = 0;
      while (plain.call[same] === drafted.call[same]) same += 1;
      note = ` (the calls part after ${same} of ${plain.call.length} characters: a near-tie)`;
    }
    const device = onGpu ? `GPU (${gpu})` : `CPU, ${values.threads} thread(s)`;
    return (
      `| ${label}${note} | ${device} | ${plain.outputTokens} | ${plain.tokensPerSecond.toFixed(0)} | ` +
      `${drafted.tokensPerSecond.toFixed(0)} | ${(drafted.tokensPerSecond / plain.tokensPerSecond).toFixed(2)}× | ` +
      `${drafted.accepted} / ${drafted.rejected} | ` +
      `${plain.cpuMicrosecondsPerToken.toFixed(0)} / ${drafted.cpuMicrosecondsPerToken.toFixed(0)} |`
    );
  } finally {
    for (const engine of engines.values()) await engine.dispose();
  }
}

const rows = [
  await compare(
    "edit call copying the file (scripted)",
    await ensureTestModel({ successors: copyingSuccessors() }),
    true,
  ),
  await compare("call copying nothing (noise model)", await ensureTestModel(), false),
];
console.log(
  `\ntiny test model shape, greedy, best of ${values.rounds} interleaved rounds, the prompt cached\n`,
);
console.log(
  "| call | device | output tokens | plain tokens/s | drafted tokens/s | drafted ÷ plain | accepted / rejected | CPU µs per token, plain / drafted |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
