// Scenario 4's reading of one prompt-lookup run: what Spark's lookup drafted and got accepted,
// per draft position, next to the ceiling a perfect lookup reaches on the same output.
import type { SpeculationReport } from "../../src/engines/llama-cpp/speculative-decode.ts";
import { lookupCeiling } from "./lookup-ceiling.ts";

export interface SpeculationSummary {
  outputTokens: number;
  /** Output tokens a perfect lookup drafts correctly (see lookup-ceiling.ts). */
  ceilingTokens: number;
  /** Per draft position: steps of the perfect lookup that were right up to it; and its steps. */
  ceilingAcceptedAt: number[];
  ceilingSteps: number;
  /** Spark's lookup: drafts, and per position how many drafts reached it and had it accepted. */
  drafts: number;
  acceptedTokens: number;
  draftedAt: number[];
  acceptedAt: number[];
}

export function summarizeSpeculation(report: SpeculationReport): SpeculationSummary {
  const ceiling = lookupCeiling(
    report.lookupTokens,
    report.history,
    report.promptTokens,
    report.maxDraftTokens,
  );
  return {
    outputTokens: ceiling.outputTokens,
    ceilingTokens: ceiling.draftedTokens,
    ceilingAcceptedAt: ceiling.acceptedAt,
    ceilingSteps: ceiling.steps,
    drafts: report.statistics.drafts,
    acceptedTokens: report.statistics.acceptedTokens,
    draftedAt: [...report.statistics.draftedAt],
    acceptedAt: [...report.statistics.acceptedAt],
  };
}

/** Element-wise sums of per-position counts (runs may have drafted to different lengths). */
export function sumPositions(lists: readonly (readonly number[])[]): number[] {
  const length = Math.max(0, ...lists.map((list) => list.length));
  return Array.from({ length }, (_, index) =>
    lists.reduce((sum, list) => sum + (list[index] ?? 0), 0),
  );
}
