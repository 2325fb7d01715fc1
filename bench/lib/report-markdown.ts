// The Markdown report of one benchmark run: every headline figure next to its target (met or
// missed), then per scenario its settings, tables, charts and what the numbers mean.
import { formatCell } from "./print-table.ts";
import type { Figure, ResultTable, ScenarioResult } from "./scenario-result.ts";

export interface RunInfo {
  startedAt: string;
  command: string;
  machine: string;
  size: string;
  durationMs: number;
}

export function markdownTable(table: Pick<ResultTable, "columns" | "rows">): string {
  const escape = (text: string) => text.replaceAll("|", "\\|");
  return [
    `| ${table.columns.map(escape).join(" | ")} |`,
    `| ${table.columns.map(() => "---").join(" | ")} |`,
    ...table.rows.map((row) => `| ${row.map((cell) => escape(formatCell(cell))).join(" | ")} |`),
  ].join("\n");
}

export function verdict(figure: Figure): string {
  if (figure.target === undefined) return "";
  if (figure.met === null) return "n/a";
  if (figure.target.binding === false)
    return figure.met ? "met (informational)" : "missed (informational)";
  return figure.met ? "met" : "missed";
}

function targetText(figure: Figure): string {
  return figure.target === undefined
    ? "–"
    : `${figure.target.comparison === ">=" ? "≥" : "≤"} ${figure.target.value} ${figure.unit}`;
}

/** One row per figure of every scenario that ran: the table the project README shows. */
export function headlineTable(results: ScenarioResult[]): string {
  const rows = results.flatMap((result) =>
    result.status !== "ran"
      ? [[`${result.scenario}. ${result.title}`, result.status, "", "", result.skipReason ?? ""]]
      : result.figures.map((figure) => [
          `${result.scenario}. ${result.title}`,
          figure.name,
          figure.value === null ? "–" : `${formatCell(figure.value)} ${figure.unit}`,
          targetText(figure),
          verdict(figure),
        ]),
  );
  return markdownTable({ columns: ["scenario", "figure", "value", "target", "verdict"], rows });
}

export function renderReport(results: ScenarioResult[], run: RunInfo): string {
  const sections = results.map((result) => {
    const lines = [`## ${result.scenario}. ${result.title}`, ""];
    if (result.status !== "ran") {
      lines.push(`**${result.status}:** ${result.skipReason ?? ""}`, "");
      return lines.join("\n");
    }
    const settings = Object.entries(result.configuration)
      .map(
        ([key, value]) => `${key} = ${typeof value === "string" ? value : JSON.stringify(value)}`,
      )
      .join("; ");
    lines.push(`Settings: ${settings}. Took ${(result.durationMs / 1000).toFixed(1)} s.`, "");
    if (result.figures.length > 0) {
      lines.push(
        markdownTable({
          columns: ["figure", "value", "target", "verdict"],
          rows: result.figures.map((figure) => [
            figure.name,
            figure.value === null ? "–" : `${formatCell(figure.value)} ${figure.unit}`,
            targetText(figure),
            verdict(figure),
          ]),
        }),
        "",
      );
    }
    for (const table of result.tables)
      lines.push(`**${table.title}**`, "", markdownTable(table), "");
    for (const chart of result.charts) lines.push(`![${chart.title}](${chart.file})`, "");
    if (result.notes.length > 0) lines.push(...result.notes.map((note) => `- ${note}`), "");
    return lines.join("\n");
  });
  return [
    "# Spark benchmark report",
    "",
    `Run ${run.startedAt} (${run.size} size, ${(run.durationMs / 1000).toFixed(0)} s): \`${run.command}\``,
    "",
    `Machine: ${run.machine}`,
    "",
    "Every ratio below is measured side by side in this one run, on this machine. Targets come from the issue; a missed target is a finding, not a failure of the run.",
    "",
    "## Headline figures",
    "",
    headlineTable(results),
    "",
    ...sections,
  ].join("\n");
}
