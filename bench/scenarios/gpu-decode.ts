// Scenario 6: GPU. A 1.5B-shape test model (Qwen2.5-1.5B's matrix sizes, random weights) on the
// GPU through the gateway: single-stream decode tokens/s and time to first token at 8k context.
// Without a GPU it is skipped, or with --gpu runs a short CPU stand-in that says so; a GPU that
// nvidia-smi sees but the CUDA backend did not load fails the run instead (gpu-run-decision.ts).
import { queryNvidiaGpus } from "../../src/engines/llama-cpp/device/nvidia-gpus.ts";
import {
  describeModelFile,
  formatModelFile,
  type ModelFileDescription,
} from "../../src/engines/llama-cpp/describe-model-file.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { ensureTestModel } from "../../test/support/test-model.ts";
import { BenchServer } from "../lib/bench-server.ts";
import { readCorpus } from "../lib/conversation-corpus.ts";
import { detectGpu } from "../lib/detect-gpu.ts";
import { ensureGpuTestModel } from "../lib/ensure-gpu-test-model.ts";
import { decideGpuRun } from "../lib/gpu-run-decision.ts";
import { rateOverTime } from "../lib/rate-over-time.ts";
import type { BenchSettings, Scenario } from "../lib/scenario.ts";
import { figure, skippedResult, type ScenarioResult } from "../lib/scenario-result.ts";
import { round } from "../lib/stats.ts";
import {
  clientDecodeTokensPerSecond,
  timeToFirstDelta,
  type TurnRecord,
} from "../lib/turn-record.ts";
import { warmUpServer } from "../lib/warm-up-server.ts";
import { WsTurnClient } from "../lib/ws-turn-client.ts";

const scenario = { number: 6, id: "gpu-decode", title: "GPU decode" };

export const gpuDecode: Scenario = {
  ...scenario,
  async run(settings) {
    const [gpu, nvidiaGpus] = await Promise.all([detectGpu(), queryNvidiaGpus()]);
    const decision = decideGpuRun(nvidiaGpus, gpu);
    if (!settings.gpu) {
      return skippedResult(
        scenario,
        `Pass --gpu to run it (${decision.description}; it writes a 2.9 GiB model first).`,
      );
    }
    if (decision.kind === "backend-missing") {
      throw new SparkError("model_load_failed", decision.message);
    }
    const startedAt = new Date();
    const onCpu = decision.kind === "cpu-stand-in";
    if (onCpu)
      settings.log(
        `  ${decision.description}: a short CPU stand-in with the tiny test model, not the GPU figure`,
      );
    const modelPath =
      settings.modelPath ??
      (onCpu ? await ensureTestModel() : await ensureGpuTestModel(settings.log));
    const modelFile = await describeModelFile(modelPath);
    settings.log(`  model: ${formatModelFile(modelFile)}`);
    const promptTokens = onCpu ? 3000 : 8192;
    const decodeTokens = onCpu ? 64 : settings.size === "full" ? 1024 : 256;
    const contextSize = onCpu ? 4096 : promptTokens + decodeTokens * 2 + 1024;
    const server = await BenchServer.start(
      {
        engine: {
          kind: "llama-cpp",
          modelPath,
          threads: settings.threads,
          contextSize,
          sequences: 1,
          gpu: "auto",
        },
        probe: true,
      },
      settings.signal,
    );
    settings.log(`  serving on ${server.device}`);
    try {
      return await measure(server, settings, {
        promptTokens,
        decodeTokens,
        onCpu,
        startedAt,
        modelFile,
      });
    } finally {
      await server.close();
    }
  },
};

async function measure(
  server: BenchServer,
  settings: BenchSettings,
  run: {
    promptTokens: number;
    decodeTokens: number;
    onCpu: boolean;
    startedAt: Date;
    modelFile: ModelFileDescription;
  },
): Promise<ScenarioResult> {
  const tokensPerByte = await warmUpServer(server, settings.signal);
  const corpus = await readCorpus(Math.ceil(run.promptTokens / tokensPerByte) + 1024);
  const prompt = corpus.slice(0, Math.floor((run.promptTokens - 32) / tokensPerByte));
  const socket = await WsTurnClient.connect(server.url, settings.signal);
  const turns: Array<{ name: string; record: TurnRecord }> = [];
  try {
    const body = { model: server.model, temperature: 0, max_output_tokens: run.decodeTokens };
    const short = await socket.runTurn({
      ...body,
      input: "Write a function that adds two numbers.",
    });
    turns.push({ name: "short prompt", record: short });
    const long = await socket.runTurn({ ...body, input: `Summarize this code.\n${prompt}` });
    turns.push({ name: `${long.inputTokens ?? "?"}-token prompt (cold prefill)`, record: long });
    const followUp = await socket.runTurn({
      ...body,
      input: "Now list its exports.",
      previous_response_id: long.responseId,
    });
    turns.push({ name: "follow-up turn at that context (WebSocket session)", record: followUp });
  } finally {
    socket.close();
  }
  await server.probeRecords(true);
  const [, long, followUp] = turns.map((turn) => turn.record);
  const label = run.onCpu ? " (CPU stand-in)" : "";
  const binding = !run.onCpu;
  const decode = (record: TurnRecord | undefined) =>
    round(
      record === undefined ? Number.NaN : (clientDecodeTokensPerSecond(record) ?? Number.NaN),
      1,
    );
  const ttft = (record: TurnRecord | undefined) =>
    round(record === undefined ? Number.NaN : (timeToFirstDelta(record) ?? Number.NaN), 1);
  return {
    ...scenario,
    scenario: scenario.number,
    status: "ran",
    startedAt: run.startedAt.toISOString(),
    durationMs: Date.now() - run.startedAt.getTime(),
    configuration: {
      model: formatModelFile(run.modelFile),
      modelFile: run.modelFile,
      device: server.device,
      promptTokens: long?.inputTokens ?? run.promptTokens,
      decodeTokens: run.decodeTokens,
      size: settings.size,
    },
    figures: [
      figure(
        `single-stream decode at ${long?.inputTokens ?? run.promptTokens} tokens of context${label}`,
        decode(long),
        "tokens/s",
        { comparison: ">=", value: 1000, binding },
      ),
      figure(`follow-up turn decode${label}`, decode(followUp), "tokens/s", {
        comparison: ">=",
        value: 1000,
        binding,
      }),
      figure(
        `time to first token, cold ${long?.inputTokens ?? run.promptTokens}-token prompt${label}`,
        ttft(long),
        "ms",
      ),
      figure(`time to first token, follow-up turn${label}`, ttft(followUp), "ms"),
    ],
    tables: [
      {
        title: "Turns over one WebSocket",
        columns: [
          "turn",
          "prompt tokens",
          "cached tokens",
          "output tokens",
          "TTFT ms",
          "decode tokens/s (client)",
          "decode tokens/s (engine)",
        ],
        rows: turns.map(({ name, record }) => [
          name,
          record.inputTokens,
          record.cachedInputTokens,
          record.outputTokens,
          ttft(record),
          decode(record),
          record.sparkTimings?.decode_tokens_per_second ?? null,
        ]),
      },
    ],
    charts: [
      {
        file: "gpu-tokens-per-second.svg",
        title: `Decode tokens/s over time${label}`,
        kind: "line",
        xLabel: "seconds since the request",
        yLabel: "tokens/s",
        series: turns.map(({ name, record }) => ({
          name,
          points: rateOverTime(
            record.arrivals,
            record.firstDeltaAt ?? record.sentAt,
            Math.max(20, ((record.lastDeltaAt ?? 0) - (record.firstDeltaAt ?? 0)) / 25),
          ),
        })),
      },
    ],
    notes: [
      `Model file: ${formatModelFile(run.modelFile)}${run.modelFile.name === undefined ? "" : ` (general.name "${run.modelFile.name}")`}.`,
      run.onCpu
        ? "No GPU was found, so this ran on the CPU with the tiny test model as a stand-in: it shows the scenario works, not the GPU figure (the target is informational). Run `npm run bench -- --gpu` on a CUDA machine."
        : "The 1.5B-shape test model has Qwen2.5-1.5B's layer sizes and f16 weights (random), so its speed is that class of model's; its text is noise. Pass --model for a real GGUF.",
      "All three turns run over one WebSocket through the gateway: a short prompt, a long cold prompt (time to first token = its prefill), and a follow-up chained with previous_response_id (only the new input is evaluated). Decode tokens/s = (output tokens − 1) / (first → last delta), client side; the engine's own figure is beside it.",
    ],
    data: { turns: turns.map(({ name, record }) => ({ name, ...record, arrivals: undefined })) },
  };
}
