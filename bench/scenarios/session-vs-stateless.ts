// Scenario 1: a 20-turn conversation growing to ~32k tokens through the gateway to the embedded
// engine, over one WebSocket with previous_response_id and over stateless HTTP/SSE that resends the
// whole conversation (with and without prompt_cache_key), turns alternated between the variants;
// per turn: bytes sent, serving-path overhead, time to first token, cached prompt tokens.
import { BenchServer } from "../lib/bench-server.ts";
import { readCorpus, userMessages } from "../lib/conversation-corpus.ts";
import { ensureLongContextTestModel } from "../lib/long-context-test-model.ts";
import type { ProbeRecord } from "../lib/probe-engine.ts";
import { ConversationPlayer, type ConversationTransport } from "../lib/run-conversation.ts";
import type { Scenario } from "../lib/scenario.ts";
import { figure, type ResultChart, type ScenarioResult } from "../lib/scenario-result.ts";
import { reduction, round } from "../lib/stats.ts";
import { measureTransportFloor, type TransportFloor } from "../lib/transport-floor.ts";
import { timeToFirstDelta, type TurnRecord } from "../lib/turn-record.ts";
import { warmUpServer } from "../lib/warm-up-server.ts";
import {
  cacheReuseTable,
  medianTurnTimeRatio,
  sessionTables,
  type TurnMeasurement,
} from "./session-tables.ts";

interface Variant {
  id: string;
  label: string;
  transport: ConversationTransport;
}

const variants: Variant[] = [
  { id: "ws-session", label: "WebSocket session", transport: { kind: "ws-session" } },
  { id: "sse-stateless", label: "HTTP/SSE stateless", transport: { kind: "responses-sse" } },
  {
    id: "sse-stateless-cache-key",
    label: "HTTP/SSE stateless + prompt_cache_key",
    transport: { kind: "responses-sse", promptCacheKey: "bench-conversation" },
  },
];

export const sessionVsStateless: Scenario = {
  number: 1,
  id: "session-vs-stateless",
  title: "Session vs stateless",
  async run(settings) {
    const startedAt = new Date();
    const { size } = settings;
    let targetTokens = { full: 32_768, quick: 4096, smoke: 512 }[size];
    const turns = size === "smoke" ? 3 : 20;
    const outputTokens = { full: 32, quick: 16, smoke: 4 }[size];
    const sequences = 4;
    if (size !== "full") {
      settings.log(`  ${size} size: the conversation grows to ${targetTokens} tokens, not ~32k`);
    }
    const contextSize = targetTokens + 2048;
    const modelPath = settings.modelPath ?? (await ensureLongContextTestModel(contextSize));
    const engine = {
      kind: "llama-cpp" as const,
      modelPath,
      threads: settings.threads,
      contextSize,
      sequences,
    };

    let messages: string[] | undefined;
    const measurements: TurnMeasurement[] = [];
    const floors = new Map<string, TransportFloor>();
    // Every variant's server at once and their turns alternated (which variant goes first rotates
    // each turn): on a shared machine the load then drifts over all variants alike, where one
    // variant after the other measured the load of its own minute (turn-time ratios of 0.7–2× for
    // the same engine work).
    const runs: Array<{ variant: Variant; server: BenchServer }> = [];
    try {
      for (const variant of variants) {
        settings.log(`  ${variant.label}: starting the server`);
        const server = await BenchServer.start({ engine, probe: true }, settings.signal);
        runs.push({ variant, server });
        if (messages === undefined) {
          // A real model may hold less than asked (its trained context caps the engine's).
          const room = (server.contextLength ?? contextSize) - 2048;
          if (room < targetTokens) {
            settings.log(
              `  the model holds ${server.contextLength} tokens: conversation up to ${room}`,
            );
            targetTokens = room;
          }
          const tokensPerByte = await warmUpServer(server, settings.signal);
          // Each turn adds its user message, the reply and a few template tokens.
          const userTokens = Math.max(32, Math.floor(targetTokens / turns) - outputTokens - 12);
          const bytes = Math.max(64, Math.floor(userTokens / tokensPerByte));
          const corpus = await readCorpus(bytes * turns + 1024);
          messages = userMessages(corpus, Array<number>(turns).fill(bytes));
        } else {
          await warmUpServer(server, settings.signal);
        }
        await server.probeRecords(true);
      }
      const conversation = messages ?? [];
      const players = await Promise.all(
        runs.map(({ variant, server }) =>
          ConversationPlayer.open({
            baseUrl: server.url,
            model: server.model,
            transport: variant.transport,
            userMessages: conversation,
            maxOutputTokens: outputTokens,
            signal: settings.signal,
            onTurn: (turn, record) =>
              settings.log(
                `  ${variant.label} turn ${turn}: ${record.inputTokens ?? "?"} tokens, ` +
                  `first token ${round(timeToFirstDelta(record) ?? Number.NaN, 1)} ms`,
              ),
          }),
        ),
      );
      try {
        for (let turn = 0; turn < conversation.length; turn += 1) {
          for (let offset = 0; offset < players.length; offset += 1) {
            await players[(turn + offset) % players.length]?.playTurn();
          }
        }
      } finally {
        await Promise.all(players.map((player) => player.close()));
      }
      for (const [index, { variant, server }] of runs.entries()) {
        const records = players[index]?.records ?? [];
        const probes = await server.probeRecords(true);
        records.forEach((record, turn) =>
          measurements.push(measure(variant.id, turn + 1, record, probes[turn])),
        );
        // After the turns, so it cannot warm them: the same connection kind and request size.
        const followUps = records.slice(1);
        const requestBytes = Math.round(
          followUps.reduce((sum, record) => sum + record.bytesSent, 0) /
            Math.max(1, followUps.length),
        );
        const kind = variant.transport.kind === "ws-session" ? "ws" : "http";
        floors.set(variant.id, await measureTransportFloor(server.echoUrl, kind, requestBytes));
      }
    } finally {
      await Promise.all(runs.map(({ server }) => server.close()));
    }

    return buildResult(measurements, floors, {
      startedAt,
      configuration: {
        model: settings.modelPath ?? `test model (tiny, trained context patched to ${contextSize})`,
        threads: settings.threads,
        contextSize,
        sequences,
        turns,
        targetFinalContextTokens: targetTokens,
        outputTokensPerTurn: outputTokens,
        size,
      },
    });
  },
};

function measure(
  variant: string,
  turn: number,
  record: TurnRecord,
  probe: ProbeRecord | undefined,
): TurnMeasurement {
  const totalMs = record.endedAt - record.sentAt;
  const prefillMs = probe?.timings?.prefillMs ?? Number.NaN;
  const decodeMs = probe?.timings?.decodeMs ?? Number.NaN;
  const timings = record.sparkTimings;
  // The spark_timings view: engine ≈ (TTFT − queue) + decode; its TTFT starts when the gateway got
  // the request, so it folds the gateway's pre-engine work into "prefill" and reads lower.
  const decodeFromTimings =
    timings?.decode_tokens_per_second && record.outputTokens
      ? ((record.outputTokens - 1) * 1000) / timings.decode_tokens_per_second
      : 0;
  const engineFromTimings =
    (timings?.time_to_first_token_ms ?? 0) - (timings?.queue_ms ?? 0) + decodeFromTimings;
  return {
    variant,
    turn,
    contextTokens: record.inputTokens ?? 0,
    bytesSent: record.bytesSent,
    totalMs,
    timeToFirstTokenMs: timeToFirstDelta(record) ?? Number.NaN,
    enginePrefillMs: prefillMs,
    engineDecodeMs: decodeMs,
    overheadMs: totalMs - prefillMs - decodeMs,
    overheadFromSparkTimingsMs: totalMs - engineFromTimings,
    gatewayOverheadMs: timings?.gateway_overhead_ms ?? Number.NaN,
    cachedTokens: record.cachedInputTokens ?? 0,
    computedTokens: (record.inputTokens ?? 0) - (record.cachedInputTokens ?? 0),
    outputTokens: record.outputTokens ?? 0,
  };
}

function buildResult(
  measurements: TurnMeasurement[],
  floors: Map<string, TransportFloor>,
  run: { startedAt: Date; configuration: Record<string, unknown> },
): ScenarioResult {
  const followUps = (variant: string): TurnMeasurement[] =>
    measurements.filter((entry) => entry.variant === variant && entry.turn > 1);
  const mean = (entries: TurnMeasurement[], pick: (entry: TurnMeasurement) => number): number =>
    entries.reduce((sum, entry) => sum + pick(entry), 0) / Math.max(1, entries.length);
  const session = followUps("ws-session");
  const stateless = followUps("sse-stateless");
  const keyed = followUps("sse-stateless-cache-key");
  const overhead = (entry: TurnMeasurement): number => entry.overheadMs;
  const cachedShare = (entries: TurnMeasurement[]): number =>
    mean(entries, (entry) => entry.cachedTokens) / mean(entries, (entry) => entry.contextTokens);
  const ttft = (entry: TurnMeasurement): number => entry.timeToFirstTokenMs;
  const bytes = (entry: TurnMeasurement): number => entry.bytesSent;
  const floorOf = (variant: string): number => floors.get(variant)?.meanMs ?? Number.NaN;
  const aboveFloor = (variant: string, entries: TurnMeasurement[]): number =>
    mean(entries, overhead) - floorOf(variant);

  const chart = (file: string, title: string, yLabel: string, pick: typeof overhead) =>
    ({
      file,
      title,
      kind: "line",
      xLabel: "context (tokens)",
      yLabel,
      series: variants.map((variant) => ({
        name: variant.label,
        points: measurements
          .filter((entry) => entry.variant === variant.id)
          .map((entry) => [entry.contextTokens, round(pick(entry), 3)] as [number, number]),
      })),
    }) satisfies ResultChart;

  return {
    scenario: 1,
    id: "session-vs-stateless",
    title: "Session vs stateless",
    status: "ran",
    startedAt: run.startedAt.toISOString(),
    durationMs: Date.now() - run.startedAt.getTime(),
    configuration: run.configuration,
    figures: [
      figure(
        "overhead reduction, follow-up turns",
        round(reduction(mean(stateless, overhead), mean(session, overhead)) * 100, 1),
        "%",
        { comparison: ">=", value: 80 },
      ),
      figure(
        "time-to-first-token reduction, follow-up turns",
        round(reduction(mean(stateless, ttft), mean(session, ttft)) * 100, 1),
        "%",
        { comparison: ">=", value: 50 },
      ),
      figure(
        "bytes sent reduction, follow-up turns",
        round(reduction(mean(stateless, bytes), mean(session, bytes)) * 100, 1),
        "%",
      ),
      figure(
        "transport floor: bare WebSocket echo round trip, mean",
        round(floorOf("ws-session"), 3),
        "ms",
      ),
      figure(
        "transport floor: bare HTTP echo round trip, mean",
        round(floorOf("sse-stateless"), 3),
        "ms",
      ),
      figure(
        "overhead above the transport floor, reduction",
        round(
          reduction(aboveFloor("sse-stateless", stateless), aboveFloor("ws-session", session)) *
            100,
          1,
        ),
        "%",
      ),
      figure(
        "stateless without a key ÷ with prompt_cache_key, turn time, follow-up turns (median per turn)",
        round(medianTurnTimeRatio(measurements, "sse-stateless", "sse-stateless-cache-key"), 3),
        "×",
        { comparison: "<=", value: 1.2 },
      ),
      figure(
        "cached share of the prompt, stateless without a key, follow-up turns",
        round(cachedShare(stateless) * 100, 1),
        "%",
      ),
      figure(
        "cached share of the prompt, stateless + prompt_cache_key, follow-up turns",
        round(cachedShare(keyed) * 100, 1),
        "%",
      ),
      figure(
        "overhead reduction vs stateless + prompt_cache_key",
        round(reduction(mean(keyed, overhead), mean(session, overhead)) * 100, 1),
        "%",
      ),
      figure(
        "TTFT reduction vs stateless + prompt_cache_key",
        round(reduction(mean(keyed, ttft), mean(session, ttft)) * 100, 1),
        "%",
      ),
    ],
    tables: [
      ...sessionTables(measurements, variants),
      cacheReuseTable(measurements, variants, "sse-stateless-cache-key"),
      {
        title:
          "Transport floor: the serving process's bare echo endpoint, same connection kind and request size, back to back",
        columns: [
          "variant",
          "connection",
          "request bytes",
          "echo round trip ms (p50)",
          "echo round trip ms (mean)",
          "follow-up overhead ms (mean)",
          "above the floor ms (mean)",
        ],
        rows: variants.map((variant) => {
          const floor = floors.get(variant.id);
          const entries = followUps(variant.id);
          return [
            variant.label,
            floor?.transport ?? null,
            floor?.requestBytes ?? null,
            floor === undefined ? null : round(floor.p50Ms, 3),
            floor === undefined ? null : round(floor.meanMs, 3),
            round(mean(entries, overhead), 3),
            round(aboveFloor(variant.id, entries), 3),
          ];
        }),
      },
    ],
    charts: [
      chart(
        "session-overhead-by-context.svg",
        "Per-turn serving overhead by context size",
        "overhead (ms)",
        overhead,
      ),
      chart(
        "session-ttft-by-context.svg",
        "Per-turn time to first token by context size",
        "time to first token (ms)",
        ttft,
      ),
    ],
    notes: [
      ...(run.configuration.size === "full"
        ? []
        : [
            `Run at ${String(run.configuration.size)} size: the conversation grows to ${String(run.configuration.targetFinalContextTokens)} tokens, not the ~32k of a full run.`,
          ]),
      "Overhead per turn = client-observed turn time (request sent → final event received) − the engine's own prefill time − its decode time, both as the engine reported them in its `timings` event (prefill: sequence acquired → first token, which includes tokenizing the prompt; decode: first → last token). Recorded in the serving process by a pass-through probe around the engine.",
      "The spark_timings formula (turn time − (time_to_first_token_ms − queue_ms) − (output tokens − 1) / decode_tokens_per_second) is in the JSON as overheadFromSparkTimingsMs; it reads lower for stateless turns because spark_timings' time to first token starts when the gateway received the request, so parsing the resent conversation counts as prefill there.",
      `Follow-up turns are turns 2..${String(run.configuration.turns)}. Reductions compare means over them: 1 − session / stateless.`,
      "Each variant has its own server (same engine settings), all three running; turns alternate between them, the first of each round rotating, so load on the machine falls on every variant alike.",
      "The embedded engine gives a request without a session of its own the sequence whose last prompt its prompt continues (llama-server's slot choice by common prefix), so a stateless client that sends no prompt_cache_key, each of its turns under a fresh key, reuses its conversation like one that sends a key: the engine work is the same in both stateless variants and the ratios against them isolate the transport (resending, re-parsing and rebuilding the conversation). 'stateless without a key ÷ with prompt_cache_key' checks that (target ≤ 1.2×); before the prefix choice it was the TTFT of a fully prefilled conversation.",
      "Transport floor: after each variant's turns, 60 round trips (the first 10 left out) to a bare echo endpoint in the same serving process, over the connection kind the variant uses (one WebSocket; undici keep-alive HTTP) with a request of the variant's mean follow-up size and a 200-byte reply, no parsing and no gateway code. A turn needs at least one such round trip (request in, final event out); 'above the floor' is the follow-up overhead minus its mean, what the gateway and the client's event handling add.",
      "Bytes sent are request payloads (the WebSocket message or the HTTP body); HTTP headers (~150 B) and WebSocket frame headers (2–14 B) are excluded.",
    ],
    data: { turns: measurements },
  };
}
