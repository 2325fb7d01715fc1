// The progress writer on a terminal (redraws with \r, throttled) and elsewhere (a line per 10%).
import { describe, expect, it } from "vitest";
import { createProgressWriter, type ProgressStream } from "./progress-writer.ts";

function recordingStream(isTTY: boolean): ProgressStream & { output: string[] } {
  const output: string[] = [];
  return { isTTY, columns: 60, output, write: (text: string) => output.push(text) };
}

const total = 1_000_000;
const at = (receivedBytes: number) => ({ receivedBytes, totalBytes: total, bytesPerSecond: 1000 });

describe("createProgressWriter", () => {
  it("redraws one line on a terminal, at most once per interval", () => {
    const stream = recordingStream(true);
    let time = 0;
    const writer = createProgressWriter(stream, { now: () => time, minimumRedrawIntervalMs: 100 });
    writer.update(at(100_000));
    time = 50;
    writer.update(at(200_000)); // too soon: skipped
    time = 150;
    writer.update(at(300_000));
    writer.finish();
    expect(stream.output).toHaveLength(3);
    expect(
      stream.output.every((text) => text.startsWith("\r") && !text.slice(0, -1).includes("\n")),
    ).toBe(true);
    expect(stream.output[1]).toContain("30%");
    expect(stream.output[2]).toMatch(/30% .*\n$/);
    const visible = (text: string) => text.replaceAll("\u001b[K", "").replace(/[\r\n]/g, "");
    expect(stream.output.every((text) => visible(text).length <= 60)).toBe(true);
  });

  it("prints a plain line every 10% when not a terminal", () => {
    const stream = recordingStream(false);
    const writer = createProgressWriter(stream, { label: "tiny.gguf" });
    for (let received = 0; received <= total; received += 25_000) writer.update(at(received));
    writer.finish();
    expect(stream.output).toHaveLength(11);
    expect(
      stream.output.every((text) => text.startsWith("tiny.gguf [") && text.endsWith("\n")),
    ).toBe(true);
    expect(stream.output.join("")).not.toContain("\r");
    expect(stream.output.at(-1)).toContain("100%");
  });
});
