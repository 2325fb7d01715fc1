import { describe, expect, it } from "vitest";
import { InputHistory } from "./input-history.ts";

describe("InputHistory", () => {
  it("walks back through sent messages and forward to the unsent draft", () => {
    const history = new InputHistory();
    history.add("first");
    history.add("second");
    history.add("second");
    history.add("  ");
    expect(history.previous("draft")).toBe("second");
    expect(history.previous("second")).toBe("first");
    expect(history.previous("first")).toBeUndefined();
    expect(history.next()).toBe("second");
    expect(history.next()).toBe("draft");
    expect(history.next()).toBeUndefined();
  });

  it("keeps at most its limit", () => {
    const history = new InputHistory(2);
    for (const text of ["a", "b", "c"]) history.add(text);
    expect(history.previous("")).toBe("c");
    expect(history.previous("")).toBe("b");
    expect(history.previous("")).toBeUndefined();
  });
});
