import { getLlama } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { grammarEndingAtValue, toolCallSchema } from "./tool-call-schema.ts";

describe("tool-call schema and grammar", () => {
  it("one tool is an object naming it; several are oneOf, annotations dropped", () => {
    const single = toolCallSchema([{ name: "a", parameters: { type: "object", default: {} } }]);
    expect(single).toEqual({
      type: "object",
      properties: { name: { const: "a" }, arguments: { type: "object" } },
    });
    const several = toolCallSchema([
      { name: "a", parameters: { type: "object" } },
      { name: "b", parameters: { type: "object", additionalProperties: false } },
    ]);
    expect(several).toMatchObject({ oneOf: [{}, { properties: { name: { const: "b" } } }] });
    expect(JSON.stringify(several)).not.toContain("additionalProperties");
  });

  it("ends node-llama-cpp's JSON grammar at the value, without the trailing newlines", async () => {
    const llama = await getLlama({ gpu: false, build: "never" });
    const grammar = await llama.createGrammarForJsonSchema(
      toolCallSchema([{ name: "a", parameters: { type: "object" } }]) as never,
    );
    expect(grammar.grammar).toMatch(/^root ::= .* "\\n\\n\\n\\n" \[\\n\]\*$/m);
    const ending = grammarEndingAtValue(grammar.grammar);
    const rootLine = ending.split("\n").find((line) => line.startsWith("root ::= "));
    expect(rootLine).toBeDefined();
    expect(rootLine).not.toContain("\\n");
    // Every other rule is kept as it was.
    expect(ending.split("\n").length).toBe(grammar.grammar.split("\n").length);
  });

  it("says so when node-llama-cpp's grammar changed shape", () => {
    expect(() => grammarEndingAtValue('root ::= "x"')).toThrow(/four newlines/);
  });
});
