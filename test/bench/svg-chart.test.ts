// The dependency-free SVG chart writer: axes that cover the data, one polyline per series, bars
// per category, escaped text, and no NaN leaking into coordinates.
import { describe, expect, it } from "vitest";
import { niceTicks, renderChartSvg } from "../../bench/lib/svg-chart.ts";
import type { ResultChart } from "../../bench/lib/scenario-result.ts";

const line: ResultChart = {
  file: "line.svg",
  title: "Overhead <by> context & size",
  kind: "line",
  xLabel: "context (tokens)",
  yLabel: "ms",
  series: [
    {
      name: "ws",
      points: [
        [100, 1],
        [2000, 1.5],
        [32_000, 2],
      ],
    },
    {
      name: "sse",
      points: [
        [100, 3],
        [2000, 9],
        [32_000, Number.NaN],
      ],
    },
  ],
};

describe("renderChartSvg", () => {
  it("draws a line chart with one polyline per series and escaped text", () => {
    const svg = renderChartSvg(line);
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain("Overhead &lt;by&gt; context &amp; size");
    expect(svg).not.toContain("NaN");
    // The non-finite point is left out: the second series has two points.
    const second = svg.match(/<polyline [^>]*points="([^"]*)"/g)?.[1] ?? "";
    expect(second.split(" ").filter((part) => part.includes(","))).toHaveLength(2);
  });

  it("draws one bar per finite value of a bar chart", () => {
    const svg = renderChartSvg({
      file: "bars.svg",
      title: "Bars",
      kind: "bar",
      xLabel: "streams",
      yLabel: "ms",
      categories: ["1", "64", "256"],
      series: [
        {
          name: "a",
          points: [
            [0, 0.2],
            [1, 0.4],
            [2, 1.5],
          ],
        },
        {
          name: "b",
          points: [
            [0, -0.1],
            [1, Number.NaN],
            [2, 3],
          ],
        },
      ],
    });
    expect(svg.match(/<title>/g)).toHaveLength(5);
    expect(svg).toContain(">256</text>");
    expect(svg).not.toContain("NaN");
  });

  it("survives a chart with no points", () => {
    const svg = renderChartSvg({ ...line, series: [{ name: "empty", points: [] }] });
    expect(svg).not.toContain("NaN");
    expect(svg).not.toContain("Infinity");
  });
});

describe("niceTicks", () => {
  it("covers the range with 1-2-5 steps", () => {
    expect(niceTicks(0, 9.3)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(100, 32_000)).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    const ticks = niceTicks(-0.7, 2.2);
    expect(ticks[0]).toBeLessThanOrEqual(-0.7);
    expect(ticks.at(-1)).toBeGreaterThanOrEqual(2.2);
  });

  it("gives a usable axis for a flat or empty range", () => {
    expect(niceTicks(5, 5).length).toBeGreaterThan(1);
    expect(niceTicks(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY)).toEqual([0, 1]);
  });
});
