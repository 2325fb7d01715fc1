// Projects prompt lookup's effective decode rate on a model from per-step costs measured on that
// model and the drafts and acceptance measured on another (scenario 4 with a real model): the
// same output, draft steps and plain steps, each priced at the measured cost of its batch size.
import { readFile } from "node:fs/promises";
import { SparkError } from "../../src/protocol/spark-error.ts";

export interface StepCost {
  /** Tokens evaluated in the step (1 for a plain token; 1 + drafted for a verification). */
  tokens: number;
  wallMs: number;
  cpuMs: number;
}

/** Scenario 4's rename runs with prompt lookup, summed. */
export interface MeasuredAcceptance {
  outputTokens: number;
  drafts: number;
  draftedTokens: number;
  acceptedTokens: number;
}

export interface SpeedUpProjection {
  /** Steps that sampled one token without a draft. */
  plainSteps: number;
  meanDraftTokens: number;
  tokensPerStep: number;
  tokensPerSecond: number;
  /** Against plain decoding of the same output at the measured plain cost. */
  speedUp: number;
}

interface ScenarioRun {
  mode: string;
  kind: string;
  speculation: {
    outputTokens: number;
    drafts: number;
    acceptedTokens: number;
    draftedAt: number[];
  } | null;
}

export async function readAcceptance(path: string): Promise<MeasuredAcceptance> {
  const result = JSON.parse(await readFile(path, "utf8")) as { data?: { runs?: ScenarioRun[] } };
  const runs = (result.data?.runs ?? []).filter(
    (run) => run.mode === "speculative" && run.kind === "rename" && run.speculation !== null,
  );
  if (runs.length === 0)
    throw new SparkError(
      "invalid_request",
      `${path} holds no scenario 4 rename run with prompt lookup (run: npm run bench -- --scenario 4 --model <gguf>).`,
    );
  return summedAcceptance(
    runs.map((run) => run.speculation as NonNullable<ScenarioRun["speculation"]>),
  );
}

export function summedAcceptance(
  runs: ReadonlyArray<{
    outputTokens: number;
    drafts: number;
    acceptedTokens: number;
    draftedAt: readonly number[];
  }>,
): MeasuredAcceptance {
  const sum = (pick: (run: (typeof runs)[number]) => number) =>
    runs.reduce((total, run) => total + pick(run), 0);
  return {
    outputTokens: sum((run) => run.outputTokens),
    drafts: sum((run) => run.drafts),
    // draftedAt[i] counts the drafts at least i + 1 tokens long: their sum is the tokens drafted.
    draftedTokens: sum((run) => run.draftedAt.reduce((total, count) => total + count, 0)),
    acceptedTokens: sum((run) => run.acceptedTokens),
  };
}

/**
 * Every draft step costs a verification batch of 1 + the mean draft length (interpolated between
 * measured batch sizes); every other output token costs one plain step.
 */
export function projectSpeedUp(
  acceptance: MeasuredAcceptance,
  plain: StepCost,
  verifications: readonly StepCost[],
  clock: "wallMs" | "cpuMs" = "wallMs",
): SpeedUpProjection {
  const meanDraftTokens =
    acceptance.drafts === 0 ? 0 : acceptance.draftedTokens / acceptance.drafts;
  const plainSteps = Math.max(
    0,
    acceptance.outputTokens - acceptance.acceptedTokens - acceptance.drafts,
  );
  const verifyMs = interpolateMs(verifications, 1 + meanDraftTokens, clock);
  const totalMs = acceptance.drafts * verifyMs + plainSteps * plain[clock];
  const steps = acceptance.drafts + plainSteps;
  const tokensPerSecond = (acceptance.outputTokens * 1000) / totalMs;
  return {
    plainSteps,
    meanDraftTokens,
    tokensPerStep: acceptance.outputTokens / Math.max(1, steps),
    tokensPerSecond,
    speedUp: tokensPerSecond / (1000 / plain[clock]),
  };
}

/** Time of a batch of `tokens`, linear between the nearest measured sizes (clamped). */
export function interpolateMs(
  costs: readonly StepCost[],
  tokens: number,
  clock: "wallMs" | "cpuMs" = "wallMs",
): number {
  const sorted = [...costs].sort((left, right) => left.tokens - right.tokens);
  const first = sorted[0];
  if (first === undefined) throw new RangeError("No measured batch sizes.");
  if (tokens <= first.tokens) return first[clock];
  for (let index = 1; index < sorted.length; index += 1) {
    const lower = sorted[index - 1] as StepCost;
    const upper = sorted[index] as StepCost;
    if (tokens <= upper.tokens) {
      const share = (tokens - lower.tokens) / (upper.tokens - lower.tokens);
      return lower[clock] + share * (upper[clock] - lower[clock]);
    }
  }
  return (sorted.at(-1) as StepCost)[clock];
}
