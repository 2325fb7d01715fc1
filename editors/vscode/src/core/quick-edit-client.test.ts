import { describe, expect, it } from "vitest";
import { buildQuickEditBody, unwrapCodeFence } from "./quick-edit-client.ts";

describe("quick edit", () => {
  it("sends the selection as the predicted output", () => {
    const body = buildQuickEditBody(
      { selection: "let a = 1;", instruction: "use const", languageId: "typescript" },
      "m",
    );
    expect(body.prediction).toEqual({ type: "content", content: "let a = 1;" });
    expect(body.model).toBe("m");
    expect(body.stream).toBe(true);
  });

  it("unwraps a fenced reply, also while its closing fence is still arriving", () => {
    expect(unwrapCodeFence("const a = 1;")).toBe("const a = 1;");
    expect(unwrapCodeFence("```ts\nconst a = 1;\n```\n")).toBe("const a = 1;");
    expect(unwrapCodeFence("```ts\nconst a = 1;\n``")).toBe("const a = 1;");
  });
});
