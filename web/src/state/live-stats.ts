// The live strip's numbers, folded from session events and the time they arrived: time to first
// token, decode tokens/s (live while streaming, the engine's own count once the turn ends),
// context used and cached prompt tokens.
import type { SessionEvent } from "../../../src/protocol/agent/index.ts";

export interface LiveStats {
  timeToFirstTokenMs: number | undefined;
  tokensPerSecond: number | undefined;
  contextUsedTokens: number | undefined;
  contextWindowTokens: number | undefined;
  cachedTokens: number | undefined;
  /** Bookkeeping for the live rate: when the current turn started and streamed its first delta. */
  turnStartedAt: number | undefined;
  firstDeltaAt: number | undefined;
  deltasThisTurn: number;
}

export const emptyLiveStats: LiveStats = {
  timeToFirstTokenMs: undefined,
  tokensPerSecond: undefined,
  contextUsedTokens: undefined,
  contextWindowTokens: undefined,
  cachedTokens: undefined,
  turnStartedAt: undefined,
  firstDeltaAt: undefined,
  deltasThisTurn: 0,
};

/**
 * `now` is when the event arrived (ms), or undefined for a replayed event (after a reload or a
 * reconnect): its arrival time says nothing about the turn, so it times nothing; the engine's
 * own numbers still come with turn-finished.
 */
export function applyLiveStats(
  stats: LiveStats,
  event: SessionEvent,
  now: number | undefined,
): LiveStats {
  switch (event.type) {
    case "turn-started":
      return {
        ...stats,
        turnStartedAt: now,
        firstDeltaAt: undefined,
        deltasThisTurn: 0,
        timeToFirstTokenMs: undefined,
        tokensPerSecond: undefined,
      };
    case "text-delta": {
      if (now === undefined) return stats;
      const firstDeltaAt = stats.firstDeltaAt ?? now;
      const deltas = stats.deltasThisTurn + 1;
      const elapsedSeconds = (now - firstDeltaAt) / 1000;
      return {
        ...stats,
        firstDeltaAt,
        deltasThisTurn: deltas,
        timeToFirstTokenMs:
          stats.timeToFirstTokenMs ??
          (stats.turnStartedAt === undefined ? undefined : now - stats.turnStartedAt),
        // A lower bound: the app server sends the tokens of one tick as one delta; the engine's
        // count replaces it when the turn ends.
        tokensPerSecond:
          elapsedSeconds > 0.05 ? (deltas - 1) / elapsedSeconds : stats.tokensPerSecond,
      };
    }
    case "budget":
      return {
        ...stats,
        contextUsedTokens: event.usedTokens,
        contextWindowTokens: event.windowTokens,
      };
    case "context-compacted":
      return {
        ...stats,
        contextUsedTokens: event.tokensAfter,
        contextWindowTokens: event.windowTokens,
      };
    case "turn-finished": {
      // The engine's decode span only: modelMs also holds each step's prefill and queueing.
      const { decodeMs, decodeTokens } = event.timings;
      return {
        ...stats,
        timeToFirstTokenMs: event.timings.timeToFirstTokenMs ?? stats.timeToFirstTokenMs,
        tokensPerSecond:
          decodeMs > 0 && decodeTokens > 0
            ? (decodeTokens * 1000) / decodeMs
            : stats.tokensPerSecond,
        cachedTokens: event.usage.cachedInputTokens,
      };
    }
    default:
      return stats;
  }
}

/** A view loaded from storage: its clock readings came from the page before the reload. */
export function forgetClock(stats: LiveStats): LiveStats {
  return { ...stats, turnStartedAt: undefined, firstDeltaAt: undefined };
}

export function formatMilliseconds(milliseconds: number | undefined): string {
  if (milliseconds === undefined) return "–";
  return milliseconds >= 1000
    ? `${(milliseconds / 1000).toFixed(2)} s`
    : `${Math.round(milliseconds)} ms`;
}
