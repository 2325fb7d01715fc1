// What every scenario hands back: headline figures checked against their targets, tables for the
// terminal and the report, chart data, notes on what the numbers mean, and the raw samples.

export interface Target {
  comparison: "<=" | ">=";
  value: number;
  /** Whether missing it matters for this run (false: informational, e.g. the test model's acceptance). */
  binding?: boolean;
}

export interface Figure {
  name: string;
  value: number | null;
  unit: string;
  target?: Target;
  /** true/false when a target was checked; null when there is no target or no value. */
  met: boolean | null;
}

export type Cell = string | number | null;

export interface ResultTable {
  title: string;
  columns: string[];
  rows: Cell[][];
}

export interface ChartSeries {
  name: string;
  points: Array<[number, number]>;
}

export interface ResultChart {
  /** File name of the SVG under bench/results/, e.g. "session-overhead-by-context.svg". */
  file: string;
  title: string;
  kind: "line" | "bar";
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** Bar charts: the category names along x (points then use x = category index). */
  categories?: string[];
}

export interface ScenarioResult {
  scenario: number;
  id: string;
  title: string;
  status: "ran" | "skipped" | "failed";
  /** Why it was skipped, or the error it failed with. */
  skipReason?: string;
  startedAt: string;
  durationMs: number;
  /** The sizes and settings this run used, so a reader can reproduce it. */
  configuration: Record<string, unknown>;
  figures: Figure[];
  tables: ResultTable[];
  charts: ResultChart[];
  notes: string[];
  data: unknown;
}

/** A headline number, with `met` worked out against its target. */
export function figure(name: string, value: number | null, unit: string, target?: Target): Figure {
  const result: Figure = { name, value, unit, met: null };
  if (target === undefined) return result;
  result.target = target;
  if (value !== null && Number.isFinite(value)) {
    result.met = target.comparison === "<=" ? value <= target.value : value >= target.value;
  }
  return result;
}

export function skippedResult(
  scenario: { number: number; id: string; title: string },
  reason: string,
  status: "skipped" | "failed" = "skipped",
): ScenarioResult {
  return {
    scenario: scenario.number,
    id: scenario.id,
    title: scenario.title,
    status,
    skipReason: reason,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    configuration: {},
    figures: [],
    tables: [],
    charts: [],
    notes: [],
    data: null,
  };
}
