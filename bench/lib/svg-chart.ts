// A tiny dependency-free SVG writer for the report's charts: line charts (a value over time or
// over context size) and grouped bar charts (a value per category), with axes, ticks and a legend.
import type { ChartSeries, ResultChart } from "./scenario-result.ts";

const WIDTH = 720;
const HEIGHT = 400;
const MARGIN = { left: 72, right: 24, top: 44, bottom: 92 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;
const COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2"];

export function renderChartSvg(chart: ResultChart): string {
  const body = chart.kind === "bar" ? barBody(chart) : lineBody(chart);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
    ...body,
    `<text x="${MARGIN.left + PLOT_WIDTH / 2}" y="${HEIGHT - 58}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text transform="translate(16 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
    ...legend(chart.series),
    "</svg>",
    "",
  ].join("\n");
}

/** Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten. */
export function niceTicks(low: number, high: number, count = 5): number[] {
  if (!Number.isFinite(low) || !Number.isFinite(high)) return [0, 1];
  if (high <= low) high = low + (low === 0 ? 1 : Math.abs(low));
  const rough = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((factor) => factor * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let tick = Math.floor(low / step) * step; tick <= high + step * 1e-9; tick += step) {
    ticks.push(Number(tick.toPrecision(12)));
  }
  if ((ticks.at(-1) ?? low) < high)
    ticks.push(Number(((ticks.at(-1) ?? low) + step).toPrecision(12)));
  return ticks;
}

function lineBody(chart: ResultChart): string[] {
  const points = chart.series.flatMap((series) => series.points).filter(finitePoint);
  const xTicks = niceTicks(
    Math.min(...points.map(([x]) => x)),
    Math.max(...points.map(([x]) => x)),
  );
  const yTicks = niceTicks(
    Math.min(0, ...points.map(([, y]) => y)),
    Math.max(...points.map(([, y]) => y)),
  );
  const scaleX = scale(xTicks, 0, PLOT_WIDTH);
  const scaleY = scale(yTicks, PLOT_HEIGHT, 0);
  const elements = [
    ...axes(
      xTicks.map((tick) => [scaleX(tick), formatTick(tick)]),
      yTicks,
      scaleY,
    ),
  ];
  chart.series.forEach((series, index) => {
    const colour = COLOURS[index % COLOURS.length] ?? "#000";
    const path = series.points
      .filter(finitePoint)
      .map(
        ([x, y]) =>
          `${(MARGIN.left + scaleX(x)).toFixed(1)},${(MARGIN.top + scaleY(y)).toFixed(1)}`,
      );
    if (path.length === 0) return;
    elements.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path.join(" ")}"/>`,
    );
    if (path.length <= 60) {
      for (const point of path) {
        const [cx, cy] = point.split(",");
        elements.push(`<circle cx="${cx}" cy="${cy}" r="2.5" fill="${colour}"/>`);
      }
    }
  });
  return elements;
}

function barBody(chart: ResultChart): string[] {
  const categories = chart.categories ?? [];
  const values = chart.series
    .flatMap((series) => series.points.map(([, y]) => y))
    .filter(Number.isFinite);
  const yTicks = niceTicks(Math.min(0, ...values), Math.max(0, ...values));
  const scaleY = scale(yTicks, PLOT_HEIGHT, 0);
  const groupWidth = PLOT_WIDTH / Math.max(1, categories.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, chart.series.length);
  const elements = [
    ...axes(
      categories.map((category, index) => [groupWidth * (index + 0.5), category]),
      yTicks,
      scaleY,
    ),
  ];
  chart.series.forEach((series, seriesIndex) => {
    const colour = COLOURS[seriesIndex % COLOURS.length] ?? "#000";
    for (const [categoryIndex, value] of series.points) {
      if (!Number.isFinite(value)) continue;
      const x = MARGIN.left + groupWidth * (categoryIndex + 0.1) + barWidth * seriesIndex;
      const top = MARGIN.top + Math.min(scaleY(value), scaleY(0));
      const height = Math.abs(scaleY(value) - scaleY(0));
      elements.push(
        `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${height.toFixed(1)}" fill="${colour}"><title>${escapeXml(`${series.name}: ${value}`)}</title></rect>`,
      );
    }
  });
  return elements;
}

/** Frame, horizontal grid lines with y labels, and x labels at the given plot offsets. */
function axes(
  xLabels: Array<[number, string]>,
  yTicks: number[],
  scaleY: (value: number) => number,
): string[] {
  const elements: string[] = [];
  for (const tick of yTicks) {
    const y = (MARGIN.top + scaleY(tick)).toFixed(1);
    elements.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + PLOT_WIDTH}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`,
      `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${formatTick(tick)}</text>`,
    );
  }
  for (const [offset, label] of xLabels) {
    const x = (MARGIN.left + offset).toFixed(1);
    elements.push(
      `<line x1="${x}" x2="${x}" y1="${MARGIN.top + PLOT_HEIGHT}" y2="${MARGIN.top + PLOT_HEIGHT + 4}" stroke="#374151"/>`,
      `<text x="${x}" y="${MARGIN.top + PLOT_HEIGHT + 18}" text-anchor="middle">${escapeXml(label)}</text>`,
    );
  }
  elements.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${PLOT_WIDTH}" height="${PLOT_HEIGHT}" fill="none" stroke="#374151"/>`,
  );
  return elements;
}

/** Legend entries left to right, wrapping onto a second row when the first is full. */
function legend(series: ChartSeries[]): string[] {
  const elements: string[] = [];
  let x = MARGIN.left;
  let y = HEIGHT - 36;
  series.forEach((entry, index) => {
    const colour = COLOURS[index % COLOURS.length] ?? "#000";
    const width = 36 + entry.name.length * 7;
    if (x > MARGIN.left && x + width > WIDTH - MARGIN.right) {
      x = MARGIN.left;
      y += 18;
    }
    elements.push(
      `<rect x="${x}" y="${y - 9}" width="12" height="12" fill="${colour}"/>`,
      `<text x="${x + 17}" y="${y}" dominant-baseline="middle">${escapeXml(entry.name)}</text>`,
    );
    x += width;
  });
  return elements;
}

function scale(ticks: number[], from: number, to: number): (value: number) => number {
  const low = ticks[0] ?? 0;
  const high = ticks.at(-1) ?? 1;
  const span = high - low || 1;
  return (value) => from + ((value - low) / span) * (to - from);
}

function finitePoint(point: [number, number]): boolean {
  return Number.isFinite(point[0]) && Number.isFinite(point[1]);
}

function formatTick(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 10_000) return `${Number((value / 1000).toPrecision(4))}k`;
  return String(Number(value.toPrecision(4)));
}

export function escapeXml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}
