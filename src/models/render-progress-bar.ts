// One line of download progress: `[#####.....] 45% 12.3 MB/27.0 MB 5.1 MB/s`.
import type { DownloadProgress } from "./download-progress.ts";

/** `width` is the number of cells between the brackets. */
export function renderProgressBar(progress: DownloadProgress, width = 30): string {
  const rate = `${formatBytes(progress.bytesPerSecond)}/s`;
  const { receivedBytes, totalBytes } = progress;
  if (totalBytes === undefined || totalBytes <= 0) {
    return `${formatBytes(receivedBytes)} ${rate}`;
  }
  const fraction = Math.min(1, Math.max(0, receivedBytes / totalBytes));
  const cells = Math.max(1, Math.floor(width));
  const filled = Math.round(fraction * cells);
  const bar = `[${"#".repeat(filled)}${".".repeat(cells - filled)}]`;
  const percent = `${Math.floor(fraction * 100)}%`;
  return `${bar} ${percent} ${formatBytes(receivedBytes)}/${formatBytes(totalBytes)} ${rate}`;
}

const UNITS = ["kB", "MB", "GB", "TB"] as const;

/** Decimal units with one decimal, as download sizes are quoted: 27.0 MB, 1.1 GB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1000) return `${Math.max(0, Math.round(bytes || 0))} B`;
  let value = bytes;
  let unit: string = "B";
  for (const next of UNITS) {
    if (value < 1000) break;
    value /= 1000;
    unit = next;
  }
  return `${value.toFixed(1)} ${unit}`;
}
