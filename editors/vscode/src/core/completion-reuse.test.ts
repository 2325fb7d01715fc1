import { describe, expect, it } from "vitest";
import { judgeReuse } from "./completion-reuse.ts";

const earlier = { documentId: "d", prefix: "const a = fo", suffix: ";\n", text: "o(bar)" };

describe("judgeReuse", () => {
  it("reuses what is left after the typed characters", () => {
    expect(
      judgeReuse(earlier, { documentId: "d", prefix: "const a = foo(", suffix: ";\n" }, true),
    ).toEqual({
      kind: "reuse",
      remaining: "bar)",
    });
  });

  it("is unrelated when the typing departs from the prediction or the suffix changed", () => {
    expect(
      judgeReuse(earlier, { documentId: "d", prefix: "const a = fox", suffix: ";\n" }, true).kind,
    ).toBe("unrelated");
    expect(
      judgeReuse(earlier, { documentId: "d", prefix: "const a = foo", suffix: "\n" }, true).kind,
    ).toBe("unrelated");
    expect(
      judgeReuse(earlier, { documentId: "e", prefix: "const a = foo", suffix: ";\n" }, true).kind,
    ).toBe("unrelated");
    expect(
      judgeReuse(earlier, { documentId: "d", prefix: "const a = f", suffix: ";\n" }, true).kind,
    ).toBe("unrelated");
  });

  it("waits when the typing runs past a completion still streaming", () => {
    const streaming = { ...earlier, text: "o(" };
    expect(
      judgeReuse(streaming, { documentId: "d", prefix: "const a = foo(ba", suffix: ";\n" }, false),
    ).toEqual({
      kind: "pending",
    });
    expect(
      judgeReuse(streaming, { documentId: "d", prefix: "const a = foo(ba", suffix: ";\n" }, true)
        .kind,
    ).toBe("unrelated");
  });
});
