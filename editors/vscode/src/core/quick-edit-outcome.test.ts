import { describe, expect, it } from "vitest";
import { decideQuickEditOutcome } from "./quick-edit-outcome.ts";

const original = "function add(x, y) {\n  return x + y;\n}";

describe("decideQuickEditOutcome", () => {
  it("offers a finished rewrite that changes something", () => {
    expect(
      decideQuickEditOutcome(original, "function add(x, y) {\n  return (x + y) | 0;\n}", {
        kind: "finished",
      }),
    ).toEqual({ kind: "offer", text: "function add(x, y) {\n  return (x + y) | 0;\n}" });
  });

  it("never offers after a failure, an empty reply or no change", () => {
    const error = new Error("401");
    expect(decideQuickEditOutcome(original, "", { kind: "failed", error })).toEqual({
      kind: "failed",
      error,
    });
    expect(decideQuickEditOutcome(original, "partial", { kind: "failed", error }).kind).toBe(
      "failed",
    );
    expect(decideQuickEditOutcome(original, "", { kind: "finished" }).kind).toBe("unchanged");
    expect(decideQuickEditOutcome(original, "  \n", { kind: "finished" }).kind).toBe("unchanged");
    expect(decideQuickEditOutcome(original, original, { kind: "finished" }).kind).toBe("unchanged");
  });

  it("after Esc offers the whole lines so far with the original's tail, or nothing", () => {
    expect(
      decideQuickEditOutcome(original, "function add(x, y) {\n  if (typeof", { kind: "stopped" })
        .kind,
    ).toBe("unchanged");
    expect(
      decideQuickEditOutcome(original, "function add(x, y) {\n  if (!x) return 0;\n  if (ty", {
        kind: "stopped",
      }),
    ).toEqual({
      kind: "offer",
      text: "function add(x, y) {\n  if (!x) return 0;\n  return x + y;\n}",
    });
  });
});
