// The per-turn measurements of the session scenario and the tables made from them: a summary
// per variant over follow-up turns, every turn side by side, and the cache reuse per variant.
import type { ResultTable } from "../lib/scenario-result.ts";
import { percentile, round } from "../lib/stats.ts";

export interface TurnMeasurement {
  variant: string;
  turn: number;
  /** Prompt tokens of the turn (the whole conversation so far). */
  contextTokens: number;
  bytesSent: number;
  totalMs: number;
  timeToFirstTokenMs: number;
  enginePrefillMs: number;
  engineDecodeMs: number;
  overheadMs: number;
  overheadFromSparkTimingsMs: number;
  gatewayOverheadMs: number;
  cachedTokens: number;
  computedTokens: number;
  outputTokens: number;
}

export function sessionTables(
  measurements: TurnMeasurement[],
  variants: Array<{ id: string; label: string }>,
): ResultTable[] {
  const summary: ResultTable = {
    title: "Follow-up turns (2..20), per variant",
    columns: [
      "variant",
      "bytes sent (mean)",
      "overhead ms (mean)",
      "overhead ms (p50)",
      "TTFT ms (mean)",
      "TTFT ms (p50)",
      "prefill tokens computed (mean)",
      "gateway_overhead_ms (mean)",
    ],
    rows: variants.map((variant) => {
      const entries = measurements.filter(
        (entry) => entry.variant === variant.id && entry.turn > 1,
      );
      const values = (pick: (entry: TurnMeasurement) => number) => entries.map(pick);
      const mean = (pick: (entry: TurnMeasurement) => number) =>
        round(values(pick).reduce((sum, value) => sum + value, 0) / Math.max(1, entries.length), 2);
      return [
        variant.label,
        mean((entry) => entry.bytesSent),
        mean((entry) => entry.overheadMs),
        round(
          percentile(
            values((entry) => entry.overheadMs),
            50,
          ),
          2,
        ),
        mean((entry) => entry.timeToFirstTokenMs),
        round(
          percentile(
            values((entry) => entry.timeToFirstTokenMs),
            50,
          ),
          2,
        ),
        mean((entry) => entry.computedTokens),
        mean((entry) => entry.gatewayOverheadMs),
      ];
    }),
  };
  const turns = [...new Set(measurements.map((entry) => entry.turn))].sort((a, b) => a - b);
  const cell = (variant: string, turn: number, pick: (entry: TurnMeasurement) => number) => {
    const entry = measurements.find((item) => item.variant === variant && item.turn === turn);
    return entry === undefined ? null : round(pick(entry), 2);
  };
  const [session, stateless] = variants;
  const perTurn: ResultTable = {
    title: `Per turn: ${session?.label ?? ""} vs ${stateless?.label ?? ""}`,
    columns: [
      "turn",
      "context tokens",
      "bytes (ws)",
      "bytes (sse)",
      "overhead ms (ws)",
      "overhead ms (sse)",
      "TTFT ms (ws)",
      "TTFT ms (sse)",
      "computed tokens (ws)",
      "computed tokens (sse)",
    ],
    rows: turns.map((turn) => {
      const ws = session?.id ?? "";
      const sse = stateless?.id ?? "";
      return [
        turn,
        cell(ws, turn, (entry) => entry.contextTokens),
        cell(ws, turn, (entry) => entry.bytesSent),
        cell(sse, turn, (entry) => entry.bytesSent),
        cell(ws, turn, (entry) => entry.overheadMs),
        cell(sse, turn, (entry) => entry.overheadMs),
        cell(ws, turn, (entry) => entry.timeToFirstTokenMs),
        cell(sse, turn, (entry) => entry.timeToFirstTokenMs),
        cell(ws, turn, (entry) => entry.computedTokens),
        cell(sse, turn, (entry) => entry.computedTokens),
      ];
    }),
  };
  return [summary, perTurn];
}

/**
 * A variant's follow-up turn time over the baseline's, as the median of per-turn ratios: turns of
 * the same context, run one after the other, so a burst of load on the machine moves one pair.
 */
export function medianTurnTimeRatio(
  measurements: TurnMeasurement[],
  variant: string,
  baseline: string,
): number {
  const ratios: number[] = [];
  for (const entry of measurements) {
    if (entry.variant !== variant || entry.turn < 2) continue;
    const base = measurements.find((item) => item.variant === baseline && item.turn === entry.turn);
    if (base !== undefined && base.totalMs > 0) ratios.push(entry.totalMs / base.totalMs);
  }
  return percentile(ratios, 50);
}

/**
 * Time per follow-up turn and the prompt share served from the KV cache, per variant, with each
 * variant's turn time over the keyed stateless one's: a client sending no prompt_cache_key should
 * find its conversation's sequence as one that sends it does (target: within 1.2×).
 */
export function cacheReuseTable(
  measurements: TurnMeasurement[],
  variants: Array<{ id: string; label: string }>,
  keyedVariant: string,
): ResultTable {
  const followUps = (variant: string): TurnMeasurement[] =>
    measurements.filter((entry) => entry.variant === variant && entry.turn > 1);
  const mean = (entries: TurnMeasurement[], pick: (entry: TurnMeasurement) => number): number =>
    entries.reduce((sum, entry) => sum + pick(entry), 0) / Math.max(1, entries.length);
  return {
    title: "Follow-up turns: time per turn and cached prompt tokens, per variant",
    columns: [
      "variant",
      "turn ms (mean)",
      "TTFT ms (mean)",
      "prompt tokens (mean)",
      "cached tokens (mean)",
      "cached share of prompt %",
      "turn time ÷ stateless + prompt_cache_key (median of per-turn ratios)",
    ],
    rows: variants.map((variant) => {
      const entries = followUps(variant.id);
      const prompt = mean(entries, (entry) => entry.contextTokens);
      const cached = mean(entries, (entry) => entry.cachedTokens);
      const turnMs = mean(entries, (entry) => entry.totalMs);
      return [
        variant.label,
        round(turnMs, 2),
        round(
          mean(entries, (entry) => entry.timeToFirstTokenMs),
          2,
        ),
        round(prompt, 1),
        round(cached, 1),
        round(prompt > 0 ? (cached / prompt) * 100 : Number.NaN, 1),
        round(medianTurnTimeRatio(measurements, variant.id, keyedVariant), 3),
      ];
    }),
  };
}
