import { describe, expect, it } from "vitest";
import { acceptSuggestion, completionTarget } from "./completion.ts";

const at = (value: string, cursor = value.length) => ({ value, cursor });

describe("completion", () => {
  it("finds a command being typed and an @-mention at the cursor", () => {
    expect(completionTarget(at("/mo"))).toEqual({ kind: "command", prefix: "/mo" });
    expect(completionTarget(at("/model fast"))).toBeUndefined();
    expect(completionTarget(at("look at @src/ag"))).toEqual({
      kind: "file",
      start: 8,
      query: "src/ag",
    });
    expect(completionTarget(at("mail me@example"))).toBeUndefined();
    expect(completionTarget(at("@"))).toEqual({ kind: "file", start: 0, query: "" });
  });

  it("replaces the mention with the chosen path and puts the cursor after it", () => {
    const line = at("read @ag and fix", 8);
    const target = completionTarget(line);
    expect(target).toBeDefined();
    if (target === undefined) return;
    expect(acceptSuggestion(line, target, "src/agent/turn-loop.ts")).toEqual({
      value: "read @src/agent/turn-loop.ts and fix",
      cursor: 29,
    });
    expect(acceptSuggestion(at("/he"), { kind: "command", prefix: "/he" }, "/help")).toEqual(
      at("/help"),
    );
  });
});
