import { describe, expect, it } from "vitest";
import {
  decodeTextFile,
  detectLineEnding,
  encodeTextFile,
  splitLines,
} from "./text-file-format.ts";

function roundTrip(raw: string | Buffer): Buffer {
  const bytes = typeof raw === "string" ? Buffer.from(raw, "utf8") : raw;
  const decoded = decodeTextFile(bytes);
  if (decoded === undefined) throw new Error("not text");
  return encodeTextFile(decoded.text, decoded.format);
}

describe("text file format", () => {
  it("edits CRLF files as LF and writes CRLF back", () => {
    const decoded = decodeTextFile(Buffer.from("a\r\nb\r\n"));
    expect(decoded?.text).toBe("a\nb\n");
    expect(decoded?.format.lineEnding).toBe("\r\n");
    if (decoded === undefined) return;
    expect(encodeTextFile("a\nc\nb\n", decoded.format).toString()).toBe("a\r\nc\r\nb\r\n");
  });

  it("treats mixed line endings as LF so untouched lines keep their bytes", () => {
    expect(detectLineEnding("a\r\nb\nc\r\n")).toBe("\n");
    expect(roundTrip("a\r\nb\nc\r\n").toString()).toBe("a\r\nb\nc\r\n");
  });

  it("keeps a missing final newline missing and a present one present", () => {
    const without = decodeTextFile(Buffer.from("a\nb"));
    const withNewline = decodeTextFile(Buffer.from("a\nb\n"));
    if (without === undefined || withNewline === undefined) throw new Error("not text");
    expect(encodeTextFile("a\nc\n", without.format).toString()).toBe("a\nc");
    expect(encodeTextFile("a\nc", withNewline.format).toString()).toBe("a\nc\n");
  });

  it("keeps a UTF-8 byte order mark", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("x\r\n")]);
    const decoded = decodeTextFile(bytes);
    expect(decoded?.text).toBe("x\n");
    expect(roundTrip(bytes).equals(bytes)).toBe(true);
  });

  it("refuses binary and invalid UTF-8 content", () => {
    expect(decodeTextFile(Buffer.from([0x61, 0x00, 0x62]))).toBeUndefined();
    expect(decodeTextFile(Buffer.from([0xff, 0xfe, 0x41]))).toBeUndefined();
  });

  it("splits lines without a phantom last line", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\n\n")).toEqual(["a", ""]);
  });
});
