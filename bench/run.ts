// `npm run bench`: runs Spark's benchmark scenarios side by side in one process, prints a table per
// scenario, writes bench/results/<date>-<scenario>.json, the charts and the Markdown report.
import { setMaxListeners } from "node:events";
import { cpus, loadavg, totalmem } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { SparkError } from "../src/protocol/spark-error.ts";
import { benchUsage, parseBenchArgs } from "./lib/parse-bench-args.ts";
import { formatCell, formatTable } from "./lib/print-table.ts";
import { verdict, type RunInfo } from "./lib/report-markdown.ts";
import type { BenchSettings, Scenario } from "./lib/scenario.ts";
import { skippedResult, type ScenarioResult } from "./lib/scenario-result.ts";
import { writeReport, writeScenarioJson } from "./lib/write-results.ts";
import { scenarios } from "./scenarios/index.ts";

const benchDirectory = dirname(fileURLToPath(import.meta.url));

function describeMachine(): string {
  const processors = cpus();
  const load = loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
  return (
    `${processors.length} × ${processors[0]?.model.trim() ?? "unknown CPU"}, ` +
    `${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, ${process.platform}-${process.arch}, load ${load} at start`
  );
}

function selectScenarios(requested: number[] | undefined, gpu: boolean): Scenario[] {
  if (requested !== undefined) {
    const wanted = new Set(gpu ? [...requested, 6] : requested);
    return scenarios.filter((scenario) => wanted.has(scenario.number));
  }
  return gpu ? scenarios.filter((scenario) => scenario.number === 6) : scenarios;
}

function printResult(result: ScenarioResult): void {
  if (result.status !== "ran") {
    console.log(`  ${result.status}: ${result.skipReason ?? ""}\n`);
    return;
  }
  if (result.figures.length > 0) {
    console.log(
      formatTable({
        title: `Scenario ${result.scenario} — ${result.title}`,
        columns: ["figure", "value", "target", "verdict"],
        rows: result.figures.map((figure) => [
          figure.name,
          figure.value === null ? "–" : `${formatCell(figure.value)} ${figure.unit}`,
          figure.target === undefined
            ? "–"
            : `${figure.target.comparison} ${figure.target.value} ${figure.unit}`,
          verdict(figure),
        ]),
      }),
    );
    console.log("");
  }
  for (const table of result.tables) console.log(`${formatTable(table)}\n`);
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    console.log(benchUsage);
    return;
  }
  const controller = new AbortController();
  // Every connection of a concurrency run listens to this one signal.
  setMaxListeners(0, controller.signal);
  process.once("SIGINT", () => controller.abort(new SparkError("cancelled", "Interrupted.")));
  const startedAt = new Date();
  const resultsDirectory = args.resultsDirectory ?? join(benchDirectory, "results");
  const run: Omit<RunInfo, "durationMs"> = {
    startedAt: startedAt.toISOString(),
    command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
    machine: describeMachine(),
    size: args.size,
  };
  const settings: BenchSettings = {
    size: args.size,
    threads: args.threads,
    modelPath: args.modelPath,
    gpu: args.gpu,
    llamaServerPath: process.env.LLAMA_SERVER?.trim() || undefined,
    log: (line) => console.log(line),
    signal: controller.signal,
  };
  console.log(`Spark benchmarks (${args.size}), ${run.machine}\n`);

  const results: ScenarioResult[] = [];
  for (const scenario of selectScenarios(args.scenarios, args.gpu)) {
    console.log(`== Scenario ${scenario.number}: ${scenario.title}`);
    let result: ScenarioResult;
    try {
      result = await scenario.run(settings);
    } catch (error) {
      if (controller.signal.aborted) throw error;
      const sparkError = SparkError.from(error);
      result = skippedResult(scenario, `${sparkError.code}: ${sparkError.message}`, "failed");
    }
    printResult(result);
    results.push(result);
    const jsonPath = await writeScenarioJson(resultsDirectory, result, run);
    console.log(`  wrote ${relative(process.cwd(), jsonPath)}\n`);
  }
  const durationMs = Date.now() - startedAt.getTime();
  const reportPath = await writeReport(resultsDirectory, results, { ...run, durationMs });
  console.log(
    `Report: ${relative(process.cwd(), reportPath)} (${(durationMs / 1000).toFixed(0)} s in all)`,
  );
  // Targets are findings, not assertions (CI must not fail on speed); a scenario that broke is.
  if (results.some((result) => result.status === "failed")) process.exitCode = 1;
}

main().catch((error: unknown) => {
  const sparkError = SparkError.from(error);
  console.error(`bench: ${sparkError.message}`);
  process.exitCode = sparkError.code === "cancelled" ? 130 : 1;
});
