import { describe, expect, it } from "vitest";
import { reanchorSelection } from "./edit-anchor.ts";

const documentText = "const a = 1;\n\nfunction multiply(x, y) {\n  return x * y;\n}\n";
const start = documentText.indexOf("function");
const selection = { documentText, start, end: documentText.length - 1 };

describe("reanchorSelection", () => {
  it("keeps the offsets when the document did not change", () => {
    expect(reanchorSelection(selection, documentText)).toEqual({
      start,
      end: documentText.length - 1,
    });
  });

  it("follows the selection when a line was added above it while the edit streamed", () => {
    const current = `// added meanwhile\n${documentText}`;
    const span = reanchorSelection(selection, current);
    expect(span).toBeDefined();
    expect(current.slice(span?.start, span?.end)).toBe(documentText.slice(start, -1));
    expect(span?.start).toBe(start + "// added meanwhile\n".length);
  });

  it("refuses when the selected text itself changed", () => {
    expect(
      reanchorSelection(selection, documentText.replace("x * y", "x * y * 2")),
    ).toBeUndefined();
  });

  it("picks the copy whose surroundings match, and refuses a tie", () => {
    const twice = "a();\nfoo();\nb();\nfoo();\nc();\n";
    const second = twice.lastIndexOf("foo();");
    const anchored = { documentText: twice, start: second, end: second + "foo();".length };
    const current = `x();\n${twice}`;
    expect(reanchorSelection(anchored, current)?.start).toBe(second + "x();\n".length);
    const same = "foo();\nfoo();\n";
    expect(
      reanchorSelection({ documentText: same, start: 0, end: 6 }, "foo();\nfoo();\nfoo();\n"),
    ).toBeUndefined();
  });
});
