// Ids stay OpenAI-shaped and distinct across refills of the random pool.
import { describe, expect, it } from "vitest";
import { newId } from "./new-id.ts";

describe("newId", () => {
  it("gives a prefix and 24 hex digits, never the same twice across pool refills", () => {
    const ids = Array.from({ length: 2000 }, () => newId("resp_"));
    for (const id of ids) expect(id).toMatch(/^resp_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
