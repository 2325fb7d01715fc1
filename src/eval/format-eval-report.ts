// The eval report for people: one column per model, side by side, a row per task (passed/runs)
// and the rows a user compares to choose `fast` and `deep`.
import path from "node:path";
import type { EvalModelSummary, EvalReport, EvalRun } from "./eval-report.ts";

export function formatEvalReport(report: EvalReport): string {
  const rows: string[][] = [["task", ...report.models.map((model) => columnLabel(model.model))]];
  for (const task of report.settings.tasks) {
    rows.push([
      task,
      ...report.models.map((model) => {
        const entry = model.tasks[task];
        return entry === undefined ? "-" : `${entry.passed}/${entry.runs}`;
      }),
    ]);
  }
  const summaryRows: [string, (model: EvalModelSummary) => string][] = [
    ["pass rate", passRate],
    ["median time per task", (model) => formatMilliseconds(model.medianTaskMs)],
    ["median time to first token", (model) => formatMilliseconds(model.medianTimeToFirstTokenMs)],
    [
      "decode tokens/s",
      (model) =>
        model.decodeTokensPerSecond === null ? "-" : model.decodeTokensPerSecond.toFixed(1),
    ],
    ["errors / timeouts", (model) => `${model.errors} / ${model.timeouts}`],
  ];
  const separatorIndex = rows.length;
  for (const [label, cell] of summaryRows) rows.push([label, ...report.models.map(cell)]);
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd(),
  );
  lines.splice(separatorIndex, 0, widths.map((width) => "-".repeat(width)).join("  "));
  if (report.interrupted)
    lines.push("", "Interrupted: the runs that had not finished are left out.");
  return `${lines.join("\n")}\n`;
}

/** A script or .gguf path is named by its file, to keep the columns narrow (the JSON has it whole). */
function columnLabel(model: string): string {
  const isPath = model.startsWith("script:") || model.toLowerCase().endsWith(".gguf");
  if (!isPath) return model;
  const file = path.basename(model.replace(/^script:/, ""));
  return model.startsWith("script:") ? `script:${file}` : file;
}

function passRate(model: EvalModelSummary): string {
  if (model.passRate === null) return "-";
  return `${Math.round(model.passRate * 100)}% (${model.passed}/${model.runs})`;
}

export function formatMilliseconds(value: number | null): string {
  if (value === null) return "-";
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`;
}

/** One progress line's ending: the outcome, its time, and why it failed when it did. */
export function formatRunOutcome(run: EvalRun): string {
  const time = formatMilliseconds(run.durationMs);
  const reason =
    run.error !== undefined
      ? ` (${run.error.code}: ${firstLine(run.error.message)})`
      : run.outcome === "fail" && run.check !== undefined
        ? ` (${firstLine(checkFailure(run.check.output))})`
        : "";
  return `${run.outcome} ${time}${reason}`;
}

/** node prints the assertion's message a few lines into its error output. */
function checkFailure(output: string): string {
  const assertion = output.split("\n").find((line) => /Error|assert/i.test(line));
  return assertion?.trim() ?? "check failed";
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
