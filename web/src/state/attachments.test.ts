import { describe, expect, it } from "vitest";
import {
  checkUpload,
  composeMessage,
  MAX_UPLOAD_BYTES,
  parseComposedMessage,
} from "./attachments.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe("attachments", () => {
  it("accepts a UTF-8 text file", () => {
    expect(checkUpload("notes.md", bytes("héllo\n"))).toEqual({
      ok: true,
      upload: { name: "notes.md", text: "héllo\n", bytes: 7 },
    });
  });

  it("refuses a file past the cap, with the sizes in the message", () => {
    const result = checkUpload("big.log", new Uint8Array(MAX_UPLOAD_BYTES + 1));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.reason).toMatch(/big\.log is 256 KB; uploads are capped at 256 KB per file/);
  });

  it("refuses binary and non-UTF-8 files, and a total past the message cap", () => {
    const reasonOf = (result: ReturnType<typeof checkUpload>): string =>
      result.ok ? "" : result.reason;
    expect(reasonOf(checkUpload("a.bin", new Uint8Array([1, 0, 2])))).toContain("binary");
    expect(reasonOf(checkUpload("a.txt", new Uint8Array([0xff, 0xfe, 0x41])))).toContain(
      "not UTF-8",
    );
    expect(reasonOf(checkUpload("c.txt", bytes("x"), 768 * 1024))).toContain("separate message");
  });

  it("puts workspace files and uploads into the message, fenced longer than any fence inside", () => {
    const message = composeMessage(
      "Review these",
      ["src/a.ts"],
      [{ name: "snippet.md", text: "```js\nx\n```", bytes: 12 }],
    );
    expect(message).toBe(
      "Review these\n\nFiles from the workspace to look at:\n- @src/a.ts\n\n" +
        "Uploaded file `snippet.md` (not in the workspace):\n````md\n```js\nx\n```\n````",
    );
  });

  it("reads a composed message back into what was typed, the files and the uploads", () => {
    const uploads = [
      { name: "snippet.md", text: "```js\nx\n```", bytes: 12 },
      { name: "empty.txt", text: "", bytes: 0 },
      { name: "two.txt", text: "a\n\nUploaded file `x` (not in the workspace):\n", bytes: 9 },
    ];
    const cases: [string, string[], typeof uploads][] = [
      ["Review these\n\nwith a blank line", ["src/a.ts", ".gitignore"], uploads],
      ["Only text", [], []],
      ["", ["src/a.ts"], []],
      ["", [], uploads.slice(0, 1)],
      ["Text and an upload", [], uploads.slice(2)],
    ];
    for (const [text, files, attached] of cases) {
      const parts = parseComposedMessage(composeMessage(text, files, attached));
      expect(parts.text).toBe(text);
      expect(parts.files).toEqual(files);
      expect(parts.uploads.map((upload) => upload.name)).toEqual(attached.map((file) => file.name));
      for (const [index, upload] of parts.uploads.entries()) {
        const original = attached[index]?.text ?? "";
        expect(upload.text).toBe(original.endsWith("\n") ? original : `${original}\n`);
      }
    }
  });

  it("leaves typed text that merely looks like the wrapper alone", () => {
    for (const typed of [
      "Here is code:\n```ts\nconst a = 1;\n```",
      "Files from the workspace to look at: none",
      "Uploaded file `a.txt` (not in the workspace):\n```\nx\n``` and more",
    ]) {
      expect(parseComposedMessage(typed)).toEqual({ text: typed, files: [], uploads: [] });
    }
  });

  it("keeps control characters and backticks out of a file's name", () => {
    const result = checkUpload("a`b\u0007.txt", bytes("x"));
    expect(result).toMatchObject({ ok: true, upload: { name: "a_b_.txt" } });
  });
});
