import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "./sse-parser.ts";

const encoder = new TextEncoder();

function parseInPieces(text: string, sizes: number[]): SseEvent[] {
  const bytes = encoder.encode(text);
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let offset = 0;
  let index = 0;
  while (offset < bytes.length) {
    const size = Math.max(1, sizes[index % sizes.length] ?? 1);
    events.push(...parser.push(bytes.subarray(offset, offset + size)));
    offset += size;
    index += 1;
  }
  events.push(...parser.end());
  return events;
}

function dataOf(events: SseEvent[]): string[] {
  return events.map((event) => event.data);
}

describe("SseParser", () => {
  const stream =
    'data: {"a":1}\n\n: ping\n\ndata: {"b":"é✓😀"}\r\n\r\nevent: custom\rid: 7\rdata: line one\rdata: line two\r\r' +
    "data:no-space\n\ndata: [DONE]\n\n";
  const expected = ['{"a":1}', '{"b":"é✓😀"}', "line one\nline two", "no-space", "[DONE]"];

  it("parses LF, CRLF and CR line endings, comments and multi-line data", () => {
    const events = parseInPieces(stream, [stream.length * 4]);
    expect(dataOf(events)).toEqual(expected);
    expect(events[2]).toEqual({ event: "custom", data: "line one\nline two", id: "7" });
    expect(events[0]?.event).toBe("message");
  });

  it("gives the same events however the bytes are split", () => {
    for (const sizes of [[1], [2], [3], [5, 1, 7], [13, 2], [64]]) {
      expect(dataOf(parseInPieces(stream, sizes))).toEqual(expected);
    }
  });

  it("treats CR then LF in the next chunk as one line ending", () => {
    const parser = new SseParser();
    const events = [
      ...parser.push(encoder.encode("data: x\r")),
      ...parser.push(encoder.encode("\n\r")),
      ...parser.push(encoder.encode("\ndata: y\n\n")),
    ];
    expect(dataOf(events)).toEqual(["x", "y"]);
  });

  it("dispatches an unterminated last event at end of stream so truncation is visible", () => {
    expect(dataOf(parseInPieces('data: {"a":1}\n\ndata: {"trunc', [4]))).toEqual([
      '{"a":1}',
      '{"trunc',
    ]);
  });

  it("ignores blank lines with no data and unknown fields", () => {
    expect(dataOf(parseInPieces("\n\nretry: 10\nfoo: bar\n\ndata: z\n\n", [3]))).toEqual(["z"]);
  });

  it("strips a byte-order mark at the start", () => {
    expect(dataOf(parseInPieces("\uFEFFdata: x\n\n", [1]))).toEqual(["x"]);
  });

  it("refuses an event or an unfinished line over its cap, as a retryable upstream_error", () => {
    const capped = new TextSseParser(16);
    expect(capped.push("data: 0123456789\n\n")).toHaveLength(1);
    expect(() => capped.push(`data: ${"x".repeat(20)}`)).toThrow(
      expect.objectContaining({ code: "upstream_error", retryable: true }),
    );
    const lines = new TextSseParser(16);
    lines.push("data: 0123456789\n");
    expect(() => lines.push("data: 0123456789\n")).toThrow();
  });
});

class TextSseParser {
  private readonly parser: SseParser;
  constructor(maxEventCharacters: number) {
    this.parser = new SseParser(maxEventCharacters);
  }
  push(text: string): SseEvent[] {
    return this.parser.push(encoder.encode(text));
  }
}
