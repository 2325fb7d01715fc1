// Shows download progress on a stream: redrawn in place on a terminal, and as plain lines every
// 10% elsewhere (CI logs, pipes), where carriage returns would pile up into noise.
import type { DownloadProgress } from "./download-progress.ts";
import { renderProgressBar } from "./render-progress-bar.ts";

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressWriterOptions {
  /** Printed before the bar, e.g. the file name. */
  label?: string;
  /** Redraws on a terminal come at most this often (the last one always shows on finish). */
  minimumRedrawIntervalMs?: number;
  now?: () => number;
}

export interface ProgressWriter {
  update(progress: DownloadProgress): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

export function createProgressWriter(
  stream: ProgressStream,
  options: ProgressWriterOptions = {},
): ProgressWriter {
  const now = options.now ?? (() => performance.now());
  const interval = options.minimumRedrawIntervalMs ?? 100;
  const prefix = options.label === undefined ? "" : `${options.label} `;
  let last: DownloadProgress | undefined;
  let lastDrawAt = -Infinity;
  let lastDecile = -1;
  let finished = false;

  const line = (progress: DownloadProgress): string => {
    // Fit one terminal line: the bar takes what the text around it leaves, within reason.
    const text = renderProgressBar(progress, 1);
    const spare = (stream.columns ?? 80) - prefix.length - text.length - 1;
    return prefix + renderProgressBar(progress, Math.min(40, Math.max(10, spare + 1)));
  };

  return {
    update(progress) {
      if (finished) return;
      last = progress;
      if (stream.isTTY === true) {
        const time = now();
        if (time - lastDrawAt < interval) return;
        lastDrawAt = time;
        stream.write(`\r${line(progress)}\u001b[K`);
        return;
      }
      if (progress.totalBytes === undefined || progress.totalBytes <= 0) return;
      const decile = Math.floor((progress.receivedBytes / progress.totalBytes) * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`${line(progress)}\n`);
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      if (last === undefined) return;
      if (stream.isTTY === true) stream.write(`\r${line(last)}\u001b[K\n`);
      else if (lastDecile < 10) stream.write(`${line(last)}\n`);
    },
  };
}
