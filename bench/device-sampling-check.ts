// Whether sampling on llama.cpp's backend holds up on this machine's backend before `auto` is
// trusted there: one engine samples on the device ("on"), one on the host ("off"), and each runs
// the same mix of jobs a coding agent sends, which switches every sequence's backend sampler
// between jobs (plain greedy and seeded text on the device; a forced tool call, under a grammar,
// and a text turn with a prediction, drafted by prompt lookup, on the host). On lavapipe such a
// switch corrupted the heap (docs/gpu.md); a crash here ends the process with a signal, so the
// exit status is the verdict. Greedy text must match between the two engines; seeded text is
// counted (it may differ within rounding, docs/gpu.md).
// Usage: npx tsx bench/device-sampling-check.ts [--gpu] [--shapes 0.5b] [--rounds 8] [--threads 1]
import { parseArgs } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import { benchModels } from "./lib/shape-models.ts";

const { values } = parseArgs({
  options: {
    gpu: { type: "boolean", default: false },
    shapes: { type: "string", default: "0.5b" },
    model: { type: "string" },
    rounds: { type: "string", default: "8" },
    threads: { type: "string", default: "1" },
    tokens: { type: "string", default: "48" },
  },
});
const rounds = Number(values.rounds);
const maxOutputTokens = Number(values.tokens);

const noteTool: ToolDefinition = {
  name: "write_note",
  description: "Write a note",
  parameters: {
    type: "object",
    properties: { content: { type: "string" } },
    required: ["content"],
  },
};

/** The jobs of one round, in an agent's order; the same list on both engines. */
function roundJobs(round: number): { label: string; request: EngineRequest }[] {
  const user = (content: string) => [{ role: "user" as const, content }];
  const source = `function add(a, b) {\n  return a + b;\n}\n// round ${round}\n`;
  return [
    {
      label: "greedy",
      request: {
        messages: user(`Explain closures, part ${round}.`),
        sampling: { temperature: 0, maxOutputTokens },
      },
    },
    {
      label: "seeded",
      request: {
        messages: user(`Tell a story, part ${round}.`),
        sampling: { temperature: 0.8, seed: round + 1, maxOutputTokens },
      },
    },
    {
      label: "tool call",
      request: {
        messages: user("Note this."),
        tools: [noteTool],
        toolChoice: { name: "write_note" },
        sampling: { temperature: 0, maxOutputTokens },
      },
    },
    {
      label: "prediction",
      request: {
        messages: user(`Rename add to sum:\n${source}`),
        prediction: source.replace("add", "sum"),
        sampling: { temperature: 0, maxOutputTokens },
      },
    },
    {
      label: "greedy again",
      request: {
        messages: user(`Explain closures, part ${round}.`),
        sampling: { temperature: 0, maxOutputTokens },
      },
    },
  ];
}

async function openEngine(path: string, deviceSampling: "on" | "off"): Promise<LlamaCppEngine> {
  return createLlamaCppEngine({
    modelPath: path,
    threads: Number(values.threads),
    sequences: 2,
    contextSize: 2048,
    decodeLoop: "native",
    deviceSampling,
    gpu: values.gpu ? "auto" : false,
  });
}

interface EngineRun {
  texts: Map<string, string>;
  samplers: Set<string>;
}

async function runAll(engine: LlamaCppEngine): Promise<EngineRun> {
  const run: EngineRun = { texts: new Map(), samplers: new Set() };
  for (let round = 0; round < rounds; round++) {
    // Two jobs at once, as two agent sessions would: sequences switch samplers under each other.
    const jobs = roundJobs(round);
    for (let index = 0; index < jobs.length; index += 2) {
      const pair = jobs.slice(index, index + 2);
      const results = await Promise.all(
        pair.map(async ({ label, request }) => ({
          label,
          result: await collectStream(engine.stream(request)),
        })),
      );
      for (const { label, result } of results) {
        if (result.finishReason === "error")
          throw new Error(`${label}: ${result.error?.message ?? "error"}`);
        run.texts.set(`${round}/${label}`, result.text + JSON.stringify(result.toolCalls));
        if (result.timings?.sampling !== undefined) {
          run.samplers.add(`${label}: ${result.timings.sampling}`);
        }
      }
    }
  }
  return run;
}

for (const model of await benchModels({ model: values.model, shapes: values.shapes })) {
  const device = await openEngine(model.path, "on");
  const host = await openEngine(model.path, "off");
  try {
    if (values.gpu && device.gpuLayers === 0) throw new Error("--gpu: no layer was offloaded");
    const [onDevice, onHost] = [await runAll(device), await runAll(host)];
    let greedyDiffer = 0;
    let seededDiffer = 0;
    for (const [key, text] of onDevice.texts) {
      if (onHost.texts.get(key) === text) continue;
      if (key.endsWith("/seeded")) seededDiffer++;
      else greedyDiffer++;
    }
    console.log(
      `${model.label} (${values.gpu ? `GPU, ${device.gpuLayers} layers` : "CPU"}), ${rounds} rounds of ${roundJobs(0).length} jobs, two at a time`,
    );
    console.log(`  samplers reported: ${[...onDevice.samplers].sort().join("; ")}`);
    console.log(
      `  greedy or tool-call texts that differ: ${greedyDiffer} (must be 0); seeded texts that differ: ${seededDiffer} of ${rounds}`,
    );
    if (greedyDiffer > 0) process.exitCode = 1;
  } finally {
    await Promise.all([device.dispose(), host.dispose()]);
  }
}
