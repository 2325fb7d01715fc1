import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createTickCorker, isFinalResponseEvent } from "./tick-corker.ts";

/** A real Writable that records each batch it is handed (one batch ≈ one system call). */
function recordingStream(): { stream: Writable; batches: string[][] } {
  const batches: string[][] = [];
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string, _encoding, callback) {
      batches.push([chunk]);
      callback();
    },
    writev(chunks, callback) {
      batches.push(chunks.map((entry) => String(entry.chunk)));
      callback();
    },
  });
  return { stream, batches };
}

describe("createTickCorker", () => {
  it("sends one tick's writes as one batch at the tick's end", async () => {
    const { stream, batches } = recordingStream();
    const corker = createTickCorker(stream);
    for (const text of ["a", "b", "c"]) {
      corker.hold();
      stream.write(text);
    }
    expect(batches).toEqual([]);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(batches).toEqual([["a", "b", "c"]]);
  });

  it("release sends what the tick held at once, and later writes still batch per tick", async () => {
    const { stream, batches } = recordingStream();
    const corker = createTickCorker(stream);
    corker.hold();
    stream.write("done event");
    corker.hold();
    stream.write("final event");
    corker.release();
    expect(batches).toEqual([["done event", "final event"]]);
    // Bookkeeping after the final event may write again in the same tick: it batches as usual.
    corker.hold();
    stream.write("late");
    corker.hold();
    stream.write("later");
    expect(batches).toHaveLength(1);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(batches).toEqual([
      ["done event", "final event"],
      ["late", "later"],
    ]);
  });

  it("release with nothing held does nothing", () => {
    const { stream, batches } = recordingStream();
    createTickCorker(stream).release();
    expect(stream.writableCorked).toBe(0);
    expect(batches).toEqual([]);
  });
});

describe("isFinalResponseEvent", () => {
  it("names the three events that end a response", () => {
    const final = ["response.completed", "response.incomplete", "response.failed"];
    for (const type of final) expect(isFinalResponseEvent(type)).toBe(true);
    for (const type of ["response.created", "response.output_text.done", "error"]) {
      expect(isFinalResponseEvent(type)).toBe(false);
    }
  });
});
