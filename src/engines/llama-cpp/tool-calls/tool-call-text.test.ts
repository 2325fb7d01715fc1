import { describe, expect, it } from "vitest";
import { ToolCallText } from "./tool-call-text.ts";

function streamPieces(pieces: string[]): { names: string[]; deltas: string; text: ToolCallText } {
  const text = new ToolCallText();
  const names: string[] = [];
  let deltas = "";
  for (const piece of pieces) {
    const step = text.push(piece);
    if (step.name !== undefined) names.push(step.name);
    deltas += step.argumentsDelta;
  }
  return { names, deltas, text };
}

describe("ToolCallText", () => {
  it("gives the name once, then the arguments as they grow, holding back the closing braces", () => {
    const text = new ToolCallText();
    expect(text.push('{"name": "read_')).toEqual({ argumentsDelta: "" });
    expect(text.push('file", "arguments": ')).toEqual({ argumentsDelta: "" });
    expect(text.push('{"path": "a}')).toEqual({ name: "read_file", argumentsDelta: '{"path": "a' });
    expect(text.push('"}')).toEqual({ argumentsDelta: '}"' });
    expect(text.push("}")).toEqual({ argumentsDelta: "" });
    expect(text.complete()).toEqual({
      name: "read_file",
      argumentsText: '{"path": "a}"}',
      argumentsRest: "}",
    });
  });

  it("streams byte by byte to the arguments exactly as sampled, whitespace included", () => {
    const call = '{\n\t"name": "list_files",\n\t"arguments": {\n\t\t"recursive": false\n\t}\n}';
    const { names, deltas, text } = streamPieces([...call]);
    const complete = text.complete();
    expect(names).toEqual(["list_files"]);
    expect(deltas + complete.argumentsRest).toBe('{\n\t\t"recursive": false\n\t}');
    expect(complete.argumentsText).toBe(deltas + complete.argumentsRest);
  });

  it("unescapes the name and keeps non-object arguments", () => {
    const { names, deltas, text } = streamPieces([
      '{"name": "say_\\"hi\\"", "arguments": ',
      "[1, 2]}",
    ]);
    expect(names).toEqual(['say_"hi"']);
    expect(deltas + text.complete().argumentsRest).toBe("[1, 2]");
  });

  it("throws on a call cut short, so the caller sends no end for it", () => {
    const { text } = streamPieces(['{"name": "read_file", "arguments": {"pa']);
    expect(() => text.complete()).toThrow();
  });

  it("a call in another key order is sent whole at the end", () => {
    const { names, deltas, text } = streamPieces(['{"arguments": {"a": 1}, "name": "f"}']);
    expect(names).toEqual([]);
    expect(deltas).toBe("");
    expect(text.complete()).toEqual({
      name: "f",
      argumentsText: '{"a":1}',
      argumentsRest: '{"a":1}',
    });
  });
});
