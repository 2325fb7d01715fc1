// Runs real scenarios at their smoke size (a real gateway in its own process, real sockets) and
// checks the shape of what they write: the JSON per scenario, the report and its charts. No
// assertions on speed: the figures are only checked to be numbers.
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchSettings } from "../../bench/lib/scenario.ts";
import type { ScenarioResult } from "../../bench/lib/scenario-result.ts";
import { writeReport, writeScenarioJson } from "../../bench/lib/write-results.ts";
import { fimTyping } from "../../bench/scenarios/fim-typing.ts";
import { interrupt } from "../../bench/scenarios/interrupt.ts";
import { peerLlamaServer } from "../../bench/scenarios/peer-llama-server.ts";
import { servingPathCost } from "../../bench/scenarios/serving-path-cost.ts";
import { speculativeEdits } from "../../bench/scenarios/speculative-edits.ts";

let directory: string;
let servingResult: ScenarioResult | undefined;
const settings: BenchSettings = {
  size: "smoke",
  threads: 1,
  modelPath: undefined,
  gpu: false,
  llamaServerPath: undefined,
  log: () => {},
  signal: new AbortController().signal,
};
const run = { startedAt: "2025-01-31T14:05:00.000Z", command: "test", machine: "test machine" };

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "spark-bench-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function expectResultShape(result: ScenarioResult): void {
  expect(result.status).toBe("ran");
  expect(result.figures.length).toBeGreaterThan(0);
  for (const figure of result.figures) {
    expect(typeof figure.name).toBe("string");
    expect(figure.value === null || typeof figure.value === "number").toBe(true);
    if (figure.target !== undefined)
      expect(typeof figure.met === "boolean" || figure.met === null).toBe(true);
  }
  for (const table of result.tables) {
    for (const row of table.rows) expect(row).toHaveLength(table.columns.length);
  }
}

describe("benchmark scenarios at smoke size", () => {
  it("serving-path cost writes its figures, tables and charts as JSON", async () => {
    const result = await servingPathCost.run(settings);
    servingResult = result;
    expectResultShape(result);
    expect(result.figures.map((figure) => figure.name)).toContain(
      "WebSocket round trip overhead p99 @ 4 streams",
    );
    const path = await writeScenarioJson(directory, result, run);
    expect(path.endsWith("2025-01-31-1405-serving-path-cost.json")).toBe(true);
    const json = JSON.parse(await readFile(path, "utf8")) as ScenarioResult & { run: unknown };
    expect(json.run).toEqual(run);
    expect(json.scenario).toBe(2);
    const data = json.data as { cells: Array<{ transport: string; tokens: number }> };
    expect(data.cells.map((cell) => cell.transport).sort()).toEqual(["sse", "sse", "ws", "ws"]);
    expect(data.cells.every((cell) => cell.tokens > 0)).toBe(true);
  });

  it("interrupt cancels real embedded-engine responses and reports the engine freed", async () => {
    const result = await interrupt.run(settings);
    expectResultShape(result);
    const samples = (
      result.data as { samples: Array<{ status: string; abortToEngineFreeMs: number }> }
    ).samples;
    expect(samples).toHaveLength(3);
    expect(samples.every((sample) => sample.status === "incomplete")).toBe(true);
    expect(samples.every((sample) => Number.isFinite(sample.abortToEngineFreeMs))).toBe(true);
  });

  it("speculative edits report the lookup's acceptance next to its ceiling per draft position", async () => {
    const result = await speculativeEdits.run(settings);
    expectResultShape(result);
    expect(result.figures.map((figure) => figure.name)).toContain(
      "accepted drafts, share of the ceiling (renames)",
    );
    const positions = result.tables.find((table) => table.title.startsWith("Per draft position"));
    expect(positions?.rows).toHaveLength(16);
    const runs = (result.data as { runs: Array<{ mode: string; speculation: unknown }> }).runs;
    expect(runs.map((run) => run.mode).sort()).toEqual([
      "plain",
      "speculative",
      "speculative (node-llama-cpp loop)",
    ]);
    const lookup = runs.find((run) => run.mode === "speculative")?.speculation as {
      outputTokens: number;
      ceilingTokens: number;
      draftedAt: number[];
    };
    expect(lookup.outputTokens).toBeGreaterThan(0);
    expect(lookup.ceilingTokens).toBeLessThanOrEqual(lookup.outputTokens);
    expect(lookup.draftedAt[0]).toBeGreaterThan(0);
  });

  it("FIM typing replays keystrokes through the gateway and reports cached tokens", async () => {
    const result = await fimTyping.run(settings);
    expectResultShape(result);
    const samples = (
      result.data as { samples: Array<{ promptTokens: number; cachedTokens: number }> }
    ).samples;
    expect(samples.length).toBeGreaterThan(0);
    // The document was opened before typing: every request that reached the engine hit its cache.
    const evaluated = samples.filter((sample) => sample.promptTokens > 0);
    expect(evaluated.length).toBeGreaterThan(0);
    expect(evaluated.every((sample) => sample.cachedTokens > 0)).toBe(true);
  });

  it("skips the llama-server peer without LLAMA_SERVER and the report says so", async () => {
    const skipped = await peerLlamaServer.run(settings);
    expect(skipped.status).toBe("skipped");
    expect(skipped.skipReason).toContain("LLAMA_SERVER");
    const served = servingResult ?? (await servingPathCost.run(settings));
    await writeReport(directory, [served, skipped], { ...run, size: "smoke", durationMs: 1 });
    const report = await readFile(join(directory, "REPORT.md"), "utf8");
    expect(report).toContain("## 2. Serving-path cost");
    expect(report).toContain("**skipped:**");
    expect(report).toContain(
      "![Gateway overhead (p99) by concurrency](serving-overhead-by-concurrency.svg)",
    );
    const files = await readdir(directory);
    expect(files).toEqual(
      expect.arrayContaining([
        "HEADLINE.md",
        "serving-overhead-by-concurrency.svg",
        "serving-cpu-per-token.svg",
      ]),
    );
  });
});
