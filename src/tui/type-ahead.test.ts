import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { holdTypeAhead } from "./type-ahead.ts";

function fakeTerminalInput() {
  const stream = new PassThrough();
  const rawModes: boolean[] = [];
  Object.assign(stream, { isTTY: true, setRawMode: (on: boolean) => rawModes.push(on) });
  return { stdin: stream as unknown as NodeJS.ReadStream, stream, rawModes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("holdTypeAhead", () => {
  it("turns raw mode on at once and hands what was typed to the next reader, Enter as Enter", async () => {
    const { stdin, stream, rawModes } = fakeTerminalInput();
    const typeAhead = holdTypeAhead(stdin, () => undefined);
    expect(rawModes).toEqual([true]);
    // A line typed before raw mode took effect ("\n" from ICRNL), then keys typed after it.
    stream.write("typed early\n");
    stream.write("and more");
    await tick();
    typeAhead.handOver();
    expect(rawModes).toEqual([true]);
    const read: string[] = [];
    stream.on("readable", () => {
      let chunk: string | null;
      while ((chunk = stream.read() as string | null) !== null) read.push(chunk);
    });
    await tick();
    expect(read.join("")).toBe("typed early\rand more");
  });

  it("quits on Ctrl+C while loading and restores the terminal", async () => {
    const { stdin, stream, rawModes } = fakeTerminalInput();
    const interrupted = vi.fn();
    holdTypeAhead(stdin, interrupted);
    stream.write("\u0003");
    await tick();
    expect(interrupted).toHaveBeenCalledOnce();
    expect(rawModes).toEqual([true, false]);
  });

  it("leaves a stdin that is not a terminal alone", () => {
    const stream = new PassThrough();
    const typeAhead = holdTypeAhead(stream as unknown as NodeJS.ReadStream, () => undefined);
    expect(stream.listenerCount("data")).toBe(0);
    typeAhead.cancel();
  });
});
