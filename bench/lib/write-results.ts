// Writes one run's files under bench/results/: a JSON file per scenario (<date>-<scenario>.json,
// git-ignored), the SVG charts, REPORT.md, and HEADLINE.md (the table the project README shows).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { headlineTable, renderReport, type RunInfo } from "./report-markdown.ts";
import type { ScenarioResult } from "./scenario-result.ts";
import { renderChartSvg } from "./svg-chart.ts";

/** 2025-01-31-1405: sorts by time and never collides within a minute's runs of one scenario. */
export function runStamp(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", "-").replace(":", "");
}

export async function writeScenarioJson(
  directory: string,
  result: ScenarioResult,
  run: Pick<RunInfo, "startedAt" | "command" | "machine">,
): Promise<string> {
  await mkdir(directory, { recursive: true });
  const path = join(directory, `${runStamp(new Date(run.startedAt))}-${result.id}.json`);
  await writeFile(path, `${JSON.stringify({ run, ...result }, null, 2)}\n`);
  return path;
}

export async function writeReport(
  directory: string,
  results: ScenarioResult[],
  run: RunInfo,
): Promise<string> {
  await mkdir(directory, { recursive: true });
  for (const result of results) {
    for (const chart of result.charts) {
      await writeFile(join(directory, chart.file), renderChartSvg(chart));
    }
  }
  const reportPath = join(directory, "REPORT.md");
  await writeFile(reportPath, renderReport(results, run));
  const headline = [
    "<!-- Written by `npm run bench`; the project README shows this table. -->",
    `Measured ${run.startedAt} with \`${run.command}\` on ${run.machine}. Full report: [REPORT.md](REPORT.md).`,
    "",
    headlineTable(results),
    "",
  ].join("\n");
  await writeFile(join(directory, "HEADLINE.md"), headline);
  return reportPath;
}
