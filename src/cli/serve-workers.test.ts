// --workers takes a count or "auto"; anything else is refused with the flag's name and what it wants.
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { parseWorkers } from "./serve-workers.ts";

describe("parseWorkers", () => {
  it("reads a count, auto (one per core) and no flag (one process)", () => {
    expect(parseWorkers(undefined)).toBe(1);
    expect(parseWorkers("4")).toBe(4);
    expect(parseWorkers("auto")).toBe(availableParallelism());
  });

  it("refuses what is not a whole number from 1 to 256", () => {
    for (const value of ["0", "-2", "1.5", "many", "1000"])
      expect(() => parseWorkers(value)).toThrow(/--workers: expected a whole number from 1 to 256/);
  });
});
