// Scenario 3: interrupts. A response streams from the embedded engine over a WebSocket; after a
// varying number of deltas the client sends response.cancel. Measured: cancel → last delta seen,
// cancel → response.incomplete, and (in the serving process) abort → engine stream ended.
import { ensureTestModel } from "../../test/support/test-model.ts";
import { BenchServer } from "../lib/bench-server.ts";
import { readCorpus } from "../lib/conversation-corpus.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, type ScenarioResult } from "../lib/scenario-result.ts";
import { round, summarize, type Summary } from "../lib/stats.ts";
import { WsTurnClient } from "../lib/ws-turn-client.ts";

interface InterruptSample {
  cancelAfterDeltas: number;
  cancelToLastDeltaMs: number;
  deltasAfterCancel: number;
  cancelToIncompleteMs: number;
  abortToEngineFreeMs: number;
  decodeStepMs: number;
  status: string;
}

export const interrupt: Scenario = {
  number: 3,
  id: "interrupt",
  title: "Interrupt",
  async run(settings) {
    const startedAt = new Date();
    const count = { full: 100, quick: 50, smoke: 3 }[settings.size];
    const server = await BenchServer.start(
      {
        engine: {
          kind: "llama-cpp",
          modelPath: settings.modelPath ?? (await ensureTestModel()),
          threads: settings.threads,
          contextSize: 4096,
          sequences: 4,
        },
        probe: true,
      },
      settings.signal,
    );
    const samples: InterruptSample[] = [];
    const corpus = await readCorpus(64 * 1024);
    const socket = await WsTurnClient.connect(server.url, settings.signal);
    try {
      // Warm-up: the first response pays for JIT compilation and the first graph allocation.
      await socket.runTurn({ model: server.model, input: "warm up", max_output_tokens: 8 });
      await server.probeRecords(true);
      for (let index = 0; index < count; index += 1) {
        settings.signal.throwIfAborted();
        const cancelAfterDeltas = 8 + ((index * 7) % 33);
        let cancelSentAt: number | undefined;
        const record = await socket.runTurn(
          {
            model: server.model,
            input: `Explain this code.\n${corpus.slice(index * 200, index * 200 + 200)}`,
            max_output_tokens: 1000,
          },
          {
            onDelta: (turn) => {
              if (cancelSentAt === undefined && turn.deltaCount >= cancelAfterDeltas) {
                cancelSentAt = socket.send({ type: "response.cancel" });
              }
            },
          },
        );
        const probe = (await server.probeRecords(true))[0];
        const cancelAt = cancelSentAt ?? record.endedAt;
        const afterCancel = record.arrivals.filter((arrival) => arrival.at > cancelAt);
        const beforeCancel = record.arrivals.filter((arrival) => arrival.at <= cancelAt);
        const decodeSpan = (beforeCancel.at(-1)?.at ?? 0) - (beforeCancel[0]?.at ?? 0);
        samples.push({
          cancelAfterDeltas,
          cancelToLastDeltaMs: Math.max(0, (afterCancel.at(-1)?.at ?? cancelAt) - cancelAt),
          deltasAfterCancel: afterCancel.length,
          cancelToIncompleteMs: record.endedAt - cancelAt,
          abortToEngineFreeMs:
            probe?.abortedAt == null ? Number.NaN : probe.endedAt - probe.abortedAt,
          decodeStepMs: decodeSpan / Math.max(1, beforeCancel.length - 1),
          status: record.status,
        });
      }
    } finally {
      socket.close();
      await server.close();
    }
    return buildResult(samples, startedAt, {
      model: settings.modelPath ?? "test model (tiny)",
      threads: settings.threads,
      cancels: count,
      cancelAfterDeltas: "8..40, varied",
      size: settings.size,
    });
  },
};

function buildResult(
  samples: InterruptSample[],
  startedAt: Date,
  configuration: Record<string, unknown>,
): ScenarioResult {
  const lastDelta = summarize(samples.map((sample) => sample.cancelToLastDeltaMs));
  const incomplete = summarize(samples.map((sample) => sample.cancelToIncompleteMs));
  const engineFree = summarize(
    samples.map((sample) => sample.abortToEngineFreeMs).filter(Number.isFinite),
  );
  const step = summarize(samples.map((sample) => sample.decodeStepMs));
  const deltasAfter = summarize(samples.map((sample) => sample.deltasAfterCancel));
  const row = (name: string, summary: Summary) => [
    name,
    summary.count,
    round(summary.p50, 3),
    round(summary.p90, 3),
    round(summary.p99, 3),
    round(summary.max, 3),
  ];
  return {
    scenario: 3,
    id: "interrupt",
    title: "Interrupt",
    status: "ran",
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - startedAt.getTime(),
    configuration,
    figures: [
      figure("cancel → last delta p50", round(lastDelta.p50, 3), "ms"),
      figure("cancel → last delta p99", round(lastDelta.p99, 3), "ms", {
        comparison: "<=",
        value: 20,
      }),
      figure("abort → engine free p99", round(engineFree.p99, 3), "ms", {
        comparison: "<=",
        value: 20,
      }),
      figure("engine free p99, in decode steps", round(engineFree.p99 / step.p50, 2), "steps", {
        comparison: "<=",
        value: 1,
      }),
      figure("cancel → response.incomplete p99", round(incomplete.p99, 3), "ms"),
    ],
    tables: [
      {
        title: "Interrupt timings",
        columns: ["measure", "samples", "p50", "p90", "p99", "max"],
        rows: [
          row("cancel sent → last delta received (ms)", lastDelta),
          row("cancel sent → response.incomplete received (ms)", incomplete),
          row("abort reached engine → engine stream ended (ms)", engineFree),
          row("decode step before the cancel (ms)", step),
          row("deltas received after the cancel", deltasAfter),
        ],
      },
    ],
    charts: [],
    notes: [
      "Client side: `response.cancel` is sent from the handler of the Nth delta (N varies from 8 to 40); 'last delta' is the arrival of the final output_text.delta after it (0 when none came), i.e. when the client's screen goes silent. Deltas counted after the cancel include any the client had not yet read when it sent it (a busy client reads its socket in batches).",
      "Engine free: in the serving process, from the moment the response's AbortSignal fired to the moment the engine's stream returned (its sequence released), both on that process's clock. response.incomplete is sent only after that, so cancel → response.incomplete bounds it from the client's side.",
      "The decode-step row is the mean time between deltas before the cancel; 'engine free in decode steps' divides the engine-free p99 by the median decode step (the architecture's budget: freed within one decode step).",
    ],
    data: { samples },
  };
}
