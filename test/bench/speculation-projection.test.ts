// The projection of prompt lookup's speed-up from per-step costs: the measured run's draft and
// plain steps, each priced at the cost of its batch size (interpolated between measured sizes).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  interpolateMs,
  projectSpeedUp,
  readAcceptance,
  summedAcceptance,
} from "../../bench/lib/speculation-projection.ts";

const plain = { tokens: 1, wallMs: 4, cpuMs: 2 };
const verifications = [
  { tokens: 1, wallMs: 4, cpuMs: 2 },
  { tokens: 9, wallMs: 8, cpuMs: 12 },
  { tokens: 17, wallMs: 12, cpuMs: 20 },
];

describe("speculation projection", () => {
  it("interpolates a batch's cost between the measured sizes and clamps outside them", () => {
    expect(interpolateMs(verifications, 13)).toBe(10);
    expect(interpolateMs(verifications, 13, "cpuMs")).toBe(16);
    expect(interpolateMs(verifications, 0.5)).toBe(4);
    expect(interpolateMs(verifications, 40)).toBe(12);
  });

  it("prices draft steps at the batch cost and the rest as plain tokens", () => {
    // 100 output tokens: 5 drafts of 16 (80 drafted, 75 accepted) plus 5 sampled in those steps,
    // so 20 tokens came from plain steps.
    const acceptance = { outputTokens: 100, drafts: 5, draftedTokens: 80, acceptedTokens: 75 };
    const projection = projectSpeedUp(acceptance, plain, verifications);
    expect(projection.plainSteps).toBe(20);
    expect(projection.meanDraftTokens).toBe(16);
    expect(projection.tokensPerStep).toBe(4);
    // 5 × 12 ms + 20 × 4 ms = 140 ms for 100 tokens, against 400 ms plain.
    expect(projection.tokensPerSecond).toBeCloseTo(100_000 / 140, 6);
    expect(projection.speedUp).toBeCloseTo(400 / 140, 6);
    // The CPU clock: 5 × 20 + 20 × 2 = 140 ms against 200 ms.
    expect(projectSpeedUp(acceptance, plain, verifications, "cpuMs").speedUp).toBeCloseTo(
      200 / 140,
      6,
    );
  });

  it("sums a scenario 4 JSON's rename runs with lookup, ignoring plain and prose runs", async () => {
    const directory = await mkdtemp(join(tmpdir(), "spark-projection-"));
    try {
      const lookup = (
        outputTokens: number,
        drafts: number,
        acceptedTokens: number,
        draftedAt: number[],
      ) => ({
        outputTokens,
        drafts,
        acceptedTokens,
        draftedAt,
      });
      const path = join(directory, "speculative-edits.json");
      await writeFile(
        path,
        JSON.stringify({
          data: {
            runs: [
              { mode: "plain", kind: "rename", speculation: null },
              { mode: "speculative", kind: "rename", speculation: lookup(50, 3, 40, [3, 3, 2, 2]) },
              { mode: "speculative", kind: "prose", speculation: lookup(10, 1, 0, [1, 1]) },
              { mode: "speculative", kind: "rename", speculation: lookup(30, 2, 20, [2, 2, 2]) },
            ],
          },
        }),
      );
      expect(await readAcceptance(path)).toEqual(
        summedAcceptance([lookup(50, 3, 40, [3, 3, 2, 2]), lookup(30, 2, 20, [2, 2, 2])]),
      );
      expect(await readAcceptance(path)).toEqual({
        outputTokens: 80,
        drafts: 5,
        draftedTokens: 16,
        acceptedTokens: 60,
      });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
