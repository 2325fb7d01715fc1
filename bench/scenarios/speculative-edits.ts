// Scenario 4: speculative edits. The same model rewrites files with one small change (a rename),
// with plain decoding and with prompt-lookup decoding (the file passed as `prediction`) on Spark's
// native loop, and with prompt lookup on node-llama-cpp's loop (a second serving process),
// interleaved over several rounds (best of N): decode tokens/s, end-to-end time, the lookup's
// accepted/rejected counters per draft position and the ceiling a perfect lookup would reach. A
// prose task (new text, with a file passed as prediction all the same) checks that lookup costs
// nothing where the output does not copy. With --gpu both serving processes run on the GPU
// backend node-llama-cpp loads (a GPU the driver sees but CUDA did not load fails the run).
import { readFile } from "node:fs/promises";
import { queryNvidiaGpus } from "../../src/engines/llama-cpp/device/nvidia-gpus.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { detectGpu } from "../lib/detect-gpu.ts";
import { decideGpuRun } from "../lib/gpu-run-decision.ts";
import { BenchServer } from "../lib/bench-server.ts";
import { ensureLongContextTestModel } from "../lib/long-context-test-model.ts";
import { rateOverTime } from "../lib/rate-over-time.ts";
import type { Scenario } from "../lib/scenario.ts";
import type { ResultChart } from "../lib/scenario-result.ts";
import { summarizeSpeculation } from "../lib/speculation-summary.ts";
import { runChatCompletionsTurn } from "../lib/sse-turns.ts";
import { round } from "../lib/stats.ts";
import type { TurnRecord } from "../lib/turn-record.ts";
import type { DecodeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import {
  buildSpeculativeEditsResult,
  NODE_LLAMA_CPP_MODE,
  type EditRun,
} from "./speculative-edits-result.ts";

interface EditTask {
  file: string;
  /** A rename edit; none: the prose task (a chat turn with nothing to copy). */
  rename?: [string, string];
}

// Nothing to copy: this model (trained on code and copy edits) answers a greeting with its own
// text, which neither prompt nor prediction holds; a longer request it would echo back.
const PROSE_REQUEST = "Hi";

const fixtures = new URL("../fixtures/edit-tasks/", import.meta.url);
const MODES: ReadonlyArray<EditRun["mode"]> = ["plain", "speculative", NODE_LLAMA_CPP_MODE];
const CONTEXT_SIZE = 8192;

export const speculativeEdits: Scenario = {
  number: 4,
  id: "speculative-edits",
  title: "Speculative edits",
  async run(settings) {
    const startedAt = new Date();
    const testModel = settings.modelPath === undefined;
    const allTasks = JSON.parse(
      await readFile(new URL("tasks.json", fixtures), "utf8"),
    ) as EditTask[];
    const renameTasks = allTasks.slice(
      0,
      { full: allTasks.length, quick: 2, smoke: 1 }[settings.size],
    );
    const proseTask: EditTask = { file: allTasks[0]?.file ?? "" };
    const tasks = settings.size === "smoke" ? renameTasks : [...renameTasks, proseTask];
    const rounds = { full: 3, quick: 1, smoke: 1 }[settings.size];
    const modelPath = settings.modelPath ?? (await ensureLongContextTestModel(CONTEXT_SIZE));
    if (settings.gpu) {
      const decision = decideGpuRun(await queryNvidiaGpus(), await detectGpu());
      if (decision.kind === "backend-missing") {
        throw new SparkError("model_load_failed", decision.message);
      }
      settings.log(`  --gpu: ${decision.description}`);
    }
    const startServer = (decodeLoop: DecodeLoop): Promise<BenchServer> =>
      BenchServer.start(
        {
          engine: {
            kind: "llama-cpp",
            modelPath,
            threads: settings.threads,
            contextSize: CONTEXT_SIZE,
            sequences: 1,
            decodeLoop,
            gpu: settings.gpu ? "auto" : false,
          },
          probe: true,
        },
        settings.signal,
      );
    // One process per loop, so each one's CPU time is its own; only one decodes at a time.
    const native = await startServer("native");
    const servers = new Map<EditRun["mode"], BenchServer>([
      ["plain", native],
      ["speculative", native],
    ]);
    const runs: EditRun[] = [];
    const charts: ResultChart[] = [];
    try {
      servers.set(NODE_LLAMA_CPP_MODE, await startServer("node-llama-cpp"));
      for (const server of new Set(servers.values())) {
        await runChatCompletionsTurn(
          server.url,
          { model: server.model, messages: [{ role: "user", content: "warm up" }], max_tokens: 4 },
          { signal: settings.signal },
        );
        await server.probeRecords(true);
      }
      for (let roundIndex = 0; roundIndex < rounds; roundIndex += 1) {
        for (const [index, task] of tasks.entries()) {
          const file = await readFile(new URL(task.file, fixtures), "utf8");
          const name = `${task.file.replace(/\.txt$/, "")}${task.rename === undefined ? " (prose)" : ""}`;
          const body = requestBody(native.model, task, file, testModel, settings.size);
          const expected = task.rename === undefined ? undefined : file.replaceAll(...task.rename);
          // Rotate which mode goes first, so none always runs on the quietest machine.
          const shift = (index + roundIndex) % MODES.length;
          const modes = [...MODES.slice(shift), ...MODES.slice(0, shift)];
          const records = new Map<EditRun["mode"], TurnRecord>();
          // Prefill the prompt once per process, so every mode starts from the cached prompt and
          // the serving process's CPU time over a turn is its decode.
          for (const server of new Set(servers.values())) {
            await runChatCompletionsTurn(
              server.url,
              { ...body, max_tokens: 1 },
              { signal: settings.signal },
            );
            await server.probeRecords(true);
          }
          for (const mode of modes) {
            settings.signal.throwIfAborted();
            const server = servers.get(mode) as BenchServer;
            const cpuMicrosBefore = await server.cpuMicros();
            const record = await runChatCompletionsTurn(
              server.url,
              mode === "plain" ? body : { ...body, prediction: { type: "content", content: file } },
              { signal: settings.signal },
            );
            const cpuMicros = (await server.cpuMicros()) - cpuMicrosBefore;
            records.set(mode, record);
            const probe = (await server.probeRecords(true))[0];
            const outputTokens = probe?.usage?.outputTokens ?? record.outputTokens ?? 0;
            const decodeMs = probe?.timings?.decodeMs ?? Number.NaN;
            runs.push({
              task: name,
              kind: task.rename === undefined ? "prose" : "rename",
              round: roundIndex + 1,
              mode,
              outputTokens,
              decodeMs,
              decodeTokensPerSecond: ((outputTokens - 1) * 1000) / decodeMs,
              cpuMsPerToken: cpuMicros / 1000 / Math.max(1, outputTokens),
              totalMs: record.endedAt - record.sentAt,
              timeToFirstTokenMs: (record.firstDeltaAt ?? record.endedAt) - record.sentAt,
              accepted: probe?.usage?.acceptedPredictionTokens ?? 0,
              rejected: probe?.usage?.rejectedPredictionTokens ?? 0,
              exactEdit: expected !== undefined && stripFences(record.text) === expected.trim(),
              speculation: probe?.speculation ? summarizeSpeculation(probe.speculation) : null,
            });
            settings.log(
              `  ${name} ${mode} (round ${roundIndex + 1}): ${outputTokens} tokens at ${round(runs.at(-1)?.decodeTokensPerSecond ?? 0, 1)} tokens/s`,
            );
          }
          if (charts.length === 0) charts.push(rateChart(records));
        }
      }
    } finally {
      for (const server of new Set(servers.values())) await server.close();
    }
    return buildSpeculativeEditsResult(runs, charts, startedAt, testModel, {
      model: settings.modelPath ?? `test model (tiny, context ${CONTEXT_SIZE})`,
      device: native.device,
      threads: settings.threads,
      rounds,
      tasks: tasks.map((task) =>
        task.rename === undefined
          ? `${task.file}: prose ("${PROSE_REQUEST}")`
          : `${task.file}: rename ${task.rename.join(" → ")}`,
      ),
      size: settings.size,
    });
  },
};

function requestBody(
  model: string,
  task: EditTask,
  file: string,
  testModel: boolean,
  size: "full" | "quick" | "smoke",
): Record<string, unknown> {
  const system = {
    role: "system",
    content:
      "You are a precise code editor. Reply with the complete updated file only, no commentary, no code fences.",
  };
  if (task.rename === undefined) {
    return {
      model,
      temperature: 0,
      max_tokens: { full: 200, quick: 64, smoke: 24 }[size],
      messages: [
        { role: "system", content: "You are a helpful assistant." },
        { role: "user", content: PROSE_REQUEST },
      ],
    };
  }
  const [from, to] = task.rename;
  // The test model never stops by itself: cap it near the edit's real length (bytes ≥ tokens).
  const maxTokens = testModel
    ? { full: file.length + 16, quick: 256, smoke: 24 }[size]
    : file.length + 64;
  return {
    model,
    temperature: 0,
    max_tokens: maxTokens,
    messages: [
      system,
      {
        role: "user",
        content: `Rename \`${from}\` to \`${to}\` everywhere in this file.\n\n${file}`,
      },
    ],
  };
}

function stripFences(text: string): string {
  return text
    .trim()
    .replace(/^```[a-z]*\n/, "")
    .replace(/\n```$/, "")
    .trim();
}

function rateChart(records: Map<EditRun["mode"], TurnRecord>): ResultChart {
  const plain = records.get("plain");
  const span = plain === undefined ? 1000 : (plain.lastDeltaAt ?? plain.endedAt) - plain.sentAt;
  const binMs = Math.max(10, Math.round(span / 25));
  return {
    file: "speculative-tokens-per-second.svg",
    title: "Edit task: tokens/s over time, plain vs prompt-lookup",
    kind: "line",
    xLabel: "seconds since the request",
    yLabel: "tokens/s (deltas per bin)",
    series: [...records.entries()].map(([mode, record]) => ({
      name: mode,
      points: rateOverTime(record.arrivals, record.sentAt, binMs),
    })),
  };
}
