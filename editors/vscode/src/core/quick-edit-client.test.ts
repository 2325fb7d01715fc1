import { describe, expect, it } from "vitest";
import { buildQuickEditBody } from "./quick-edit-client.ts";

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
});
