import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../src/protocol/agent/index.ts";
import { startTimesForSameTitles } from "./session-list.ts";

const session = (sessionId: string, title: string, startedAt: Date): SessionSummary => ({
  sessionId,
  cwd: "/work",
  live: false,
  status: "idle",
  title,
  startedAt: startedAt.toISOString(),
});

describe("session titles", () => {
  it("tells sessions with the same title apart by when they started", () => {
    const times = startTimesForSameTitles([
      session("a", "Fix the tests", new Date(2025, 5, 3, 14, 5, 10)),
      session("b", "Fix the tests", new Date(2025, 5, 4, 9, 30, 0)),
      session("c", "Fix the tests", new Date(2025, 5, 4, 9, 30, 42)),
      session("d", "Something else", new Date(2025, 5, 4, 9, 30, 42)),
    ]);
    expect(Object.fromEntries(times)).toEqual({
      a: "2025-06-03 14:05",
      b: "2025-06-04 09:30:00",
      c: "2025-06-04 09:30:42",
    });
  });
});
