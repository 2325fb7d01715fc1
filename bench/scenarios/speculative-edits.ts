// Scenario 4: speculative edits. The same model rewrites files with one small change (a rename),
// once with plain decoding and once with prompt-lookup decoding (the file passed as `prediction`):
// decode tokens/s, end-to-end time, and the predictor's accepted/rejected counters.
import { readFile } from "node:fs/promises";
import { BenchServer } from "../lib/bench-server.ts";
import { ensureLongContextTestModel } from "../lib/long-context-test-model.ts";
import { rateOverTime } from "../lib/rate-over-time.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, type ResultChart, type ScenarioResult } from "../lib/scenario-result.ts";
import { runChatCompletionsTurn } from "../lib/sse-turns.ts";
import { round } from "../lib/stats.ts";
import type { TurnRecord } from "../lib/turn-record.ts";

interface EditTask {
  file: string;
  rename: [string, string];
}

interface EditRun {
  task: string;
  mode: "plain" | "speculative";
  outputTokens: number;
  decodeMs: number;
  decodeTokensPerSecond: number;
  totalMs: number;
  timeToFirstTokenMs: number;
  accepted: number;
  rejected: number;
  exactEdit: boolean;
}

const fixtures = new URL("../fixtures/edit-tasks/", import.meta.url);
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
    const tasks = allTasks.slice(0, { full: allTasks.length, quick: 2, smoke: 1 }[settings.size]);
    const server = await BenchServer.start(
      {
        engine: {
          kind: "llama-cpp",
          modelPath: settings.modelPath ?? (await ensureLongContextTestModel(CONTEXT_SIZE)),
          threads: settings.threads,
          contextSize: CONTEXT_SIZE,
          sequences: 1,
        },
        probe: true,
      },
      settings.signal,
    );
    const runs: EditRun[] = [];
    const charts: ResultChart[] = [];
    try {
      await runChatCompletionsTurn(
        server.url,
        { model: server.model, messages: [{ role: "user", content: "warm up" }], max_tokens: 4 },
        { signal: settings.signal },
      );
      await server.probeRecords(true);
      for (const [index, task] of tasks.entries()) {
        const file = await readFile(new URL(task.file, fixtures), "utf8");
        const [from, to] = task.rename;
        const expected = file.replaceAll(from, to);
        // The test model never stops by itself: cap it near the edit's real length (bytes ≥ tokens).
        const maxTokens = testModel
          ? { full: file.length + 16, quick: 256, smoke: 24 }[settings.size]
          : file.length + 64;
        const body = {
          model: server.model,
          temperature: 0,
          max_tokens: maxTokens,
          messages: [
            {
              role: "system",
              content:
                "You are a precise code editor. Reply with the complete updated file only, no commentary, no code fences.",
            },
            {
              role: "user",
              content: `Rename \`${from}\` to \`${to}\` everywhere in this file.\n\n${file}`,
            },
          ],
        };
        // Alternate which mode goes first, so neither always gets the other's cached prompt.
        const modes: Array<EditRun["mode"]> =
          index % 2 === 0 ? ["plain", "speculative"] : ["speculative", "plain"];
        const records = new Map<EditRun["mode"], TurnRecord>();
        for (const mode of modes) {
          settings.signal.throwIfAborted();
          const record = await runChatCompletionsTurn(
            server.url,
            mode === "plain" ? body : { ...body, prediction: { type: "content", content: file } },
            { signal: settings.signal },
          );
          records.set(mode, record);
          const probe = (await server.probeRecords(true))[0];
          const outputTokens = probe?.usage?.outputTokens ?? record.outputTokens ?? 0;
          const decodeMs = probe?.timings?.decodeMs ?? Number.NaN;
          runs.push({
            task: task.file.replace(/\.txt$/, ""),
            mode,
            outputTokens,
            decodeMs,
            decodeTokensPerSecond: ((outputTokens - 1) * 1000) / decodeMs,
            totalMs: record.endedAt - record.sentAt,
            timeToFirstTokenMs: (record.firstDeltaAt ?? record.endedAt) - record.sentAt,
            accepted: probe?.usage?.acceptedPredictionTokens ?? 0,
            rejected: probe?.usage?.rejectedPredictionTokens ?? 0,
            exactEdit: stripFences(record.text) === expected.trim(),
          });
          settings.log(
            `  ${task.file} ${mode}: ${outputTokens} tokens at ${round(runs.at(-1)?.decodeTokensPerSecond ?? 0, 1)} tokens/s`,
          );
        }
        if (charts.length === 0) charts.push(rateChart(records));
      }
    } finally {
      await server.close();
    }
    return buildResult(runs, charts, startedAt, testModel, {
      model: settings.modelPath ?? `test model (tiny, context ${CONTEXT_SIZE})`,
      threads: settings.threads,
      tasks: tasks.map((task) => `${task.file}: rename ${task.rename.join(" → ")}`),
      size: settings.size,
    });
  },
};

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

function buildResult(
  runs: EditRun[],
  charts: ResultChart[],
  startedAt: Date,
  testModel: boolean,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const total = (mode: EditRun["mode"], pick: (run: EditRun) => number) =>
    runs.filter((run) => run.mode === mode).reduce((sum, run) => sum + pick(run), 0);
  const rate = (mode: EditRun["mode"]) =>
    (total(mode, (run) => run.outputTokens - 1) * 1000) / total(mode, (run) => run.decodeMs);
  const plainRate = rate("plain");
  const speculativeRate = rate("speculative");
  const accepted = total("speculative", (run) => run.accepted);
  const rejected = total("speculative", (run) => run.rejected);
  return {
    scenario: 4,
    id: "speculative-edits",
    title: "Speculative edits",
    status: "ran",
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    configuration,
    figures: [
      figure(
        "decode speed-up, prompt lookup vs plain",
        round(speculativeRate / plainRate, 2),
        "×",
        {
          comparison: ">=",
          value: 2.5,
          binding: !testModel,
        },
      ),
      figure(
        "end-to-end speed-up",
        round(total("plain", (run) => run.totalMs) / total("speculative", (run) => run.totalMs), 2),
        "×",
      ),
      figure("plain decode", round(plainRate, 1), "tokens/s"),
      figure("prompt-lookup decode", round(speculativeRate, 1), "tokens/s"),
      figure(
        "predicted tokens accepted",
        round((accepted / Math.max(1, accepted + rejected)) * 100, 1),
        "%",
      ),
    ],
    tables: [
      {
        title: "Per edit task",
        columns: [
          "task",
          "mode",
          "output tokens",
          "decode tokens/s",
          "total ms",
          "TTFT ms",
          "accepted",
          "rejected",
          "exact edit",
        ],
        rows: runs.map((run) => [
          run.task,
          run.mode,
          run.outputTokens,
          round(run.decodeTokensPerSecond, 1),
          round(run.totalMs, 1),
          round(run.timeToFirstTokenMs, 1),
          run.accepted,
          run.rejected,
          run.exactEdit ? "yes" : "no",
        ]),
      },
    ],
    charts,
    notes: [
      testModel
        ? "With Spark's test model (random weights) the output is noise that never repeats the file, so predicted tokens are almost all rejected and the speed-up is meaningless (the target is informational here). Run with `--model <real.gguf>` (an instruction-tuned coder) for the real figure."
        : "A real model: the acceptance and speed-up are the real figures for this model and machine.",
      "Plain = no predictor input; prompt lookup = the file passed as Chat Completions `prediction`, which the embedded engine feeds to node-llama-cpp's InputLookupTokenPredictor (up to 8 tokens drafted per step). Same engine, same sequence, same prompt, temperature 0; the order alternates per task.",
      "Decode tokens/s = (output tokens − 1) / (first → last token) as the engine timed it, summed over tasks; accepted/rejected are the engine's predictor counters (usage.acceptedPredictionTokens / rejectedPredictionTokens).",
      "'exact edit' says whether the reply is exactly the file with the rename applied (code fences ignored).",
    ],
    data: { runs },
  };
}
