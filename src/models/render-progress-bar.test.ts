// The progress line's exact text, with and without a known total.
import { describe, expect, it } from "vitest";
import { formatBytes, renderProgressBar } from "./render-progress-bar.ts";

describe("renderProgressBar", () => {
  it("draws the bar, percentage, sizes and rate", () => {
    expect(
      renderProgressBar(
        { receivedBytes: 12_300_000, totalBytes: 27_000_000, bytesPerSecond: 5_100_000 },
        10,
      ),
    ).toBe("[#####.....] 45% 12.3 MB/27.0 MB 5.1 MB/s");
    expect(renderProgressBar({ receivedBytes: 10, totalBytes: 10, bytesPerSecond: 0 }, 4)).toBe(
      "[####] 100% 10 B/10 B 0 B/s",
    );
  });

  it("leaves out the bar when the total is unknown", () => {
    expect(
      renderProgressBar({
        receivedBytes: 1_500_000_000,
        totalBytes: undefined,
        bytesPerSecond: 2500,
      }),
    ).toBe("1.5 GB 2.5 kB/s");
  });

  it("formats sizes in decimal units", () => {
    expect([999, 1000, 27_000_000, 1_100_000_000].map(formatBytes)).toEqual([
      "999 B",
      "1.0 kB",
      "27.0 MB",
      "1.1 GB",
    ]);
  });
});
