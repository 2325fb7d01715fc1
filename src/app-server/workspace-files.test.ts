import { describe, expect, it } from "vitest";
import { fuzzyScore } from "./workspace-files.ts";

describe("fuzzyScore", () => {
  it("ranks a file-name substring above a path substring above scattered letters", () => {
    const inName = fuzzyScore("src/app-server/live-session.ts", "live");
    const inPath = fuzzyScore("src/app-server/live-session.ts", "app-server");
    const scattered = fuzzyScore("src/app-server/live-session.ts", "asls");
    expect(inName).toBe(0);
    expect(inPath).toBe(1);
    expect(scattered).toBeGreaterThan(1);
  });

  it("rejects a query whose letters do not appear in order", () => {
    expect(fuzzyScore("readme.md", "rm")).toBe(3);
    expect(fuzzyScore("readme.md", "mr")).toBeUndefined();
    expect(fuzzyScore("readme.md", "zz")).toBeUndefined();
    expect(fuzzyScore("ab", "ba")).toBeUndefined();
  });
});
