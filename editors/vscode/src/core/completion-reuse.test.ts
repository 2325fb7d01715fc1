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
      replaceLength: 0,
    });
  });

  it("reuses it through an opener whose auto-closed closer now follows the cursor, replacing it", () => {
    const atLineEnd = { documentId: "d", prefix: "const a = fo", suffix: "\n", text: "o(bar[1]);" };
    // foo(|) — the rest holds the ")", so it replaces the one auto-close inserted.
    expect(
      judgeReuse(atLineEnd, { documentId: "d", prefix: "const a = foo(", suffix: ")\n" }, true),
    ).toEqual({ kind: "reuse", remaining: "bar[1]);", replaceLength: 1 });
    // foo(bar[|]) — two closers, innermost first.
    expect(
      judgeReuse(
        atLineEnd,
        { documentId: "d", prefix: "const a = foo(bar[", suffix: "])\n" },
        true,
      ),
    ).toEqual({ kind: "reuse", remaining: "1]);", replaceLength: 2 });
    // foo(bar[1]|) — "]" typed over its auto-closed twin: one closer left.
    expect(
      judgeReuse(
        atLineEnd,
        { documentId: "d", prefix: "const a = foo(bar[1]", suffix: ")\n" },
        true,
      ),
    ).toEqual({ kind: "reuse", remaining: ");", replaceLength: 1 });
    // An editor without auto-close: nothing to replace.
    expect(
      judgeReuse(atLineEnd, { documentId: "d", prefix: "const a = foo(", suffix: "\n" }, true),
    ).toEqual({ kind: "reuse", remaining: "bar[1]);", replaceLength: 0 });
  });

  it("reuses it through quotes and keeps a closer the rest does not hold after it", () => {
    const call = { documentId: "d", prefix: "say", suffix: "\n", text: '("hi' };
    expect(judgeReuse(call, { documentId: "d", prefix: 'say("', suffix: '")\n' }, true)).toEqual({
      kind: "reuse",
      remaining: "hi",
      replaceLength: 0,
    });
    // Auto-close skipped the quote (before a word it does): the ")" alone.
    expect(judgeReuse(call, { documentId: "d", prefix: 'say("', suffix: ")\n" }, true)).toEqual({
      kind: "reuse",
      remaining: "hi",
      replaceLength: 0,
    });
  });

  it("is unrelated when what follows the cursor is not a closer of what was typed", () => {
    const atLineEnd = { documentId: "d", prefix: "x = fo", suffix: "\n", text: "o(1);" };
    for (const suffix of ["]\n", ";\n", "))\n", "a)\n"])
      expect(
        judgeReuse(atLineEnd, { documentId: "d", prefix: "x = foo(", suffix }, true).kind,
      ).toBe("unrelated");
    // The closer of an opener typed before the prediction is not the typing's.
    expect(
      judgeReuse(
        { ...atLineEnd, prefix: "x = (fo" },
        { documentId: "d", prefix: "x = (foo", suffix: ")\n" },
        true,
      ).kind,
    ).toBe("unrelated");
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
