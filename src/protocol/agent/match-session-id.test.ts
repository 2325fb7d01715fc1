import { describe, expect, it } from "vitest";
import { describeFailedMatch, matchSessionId } from "./match-session-id.ts";

const sessions = [{ sessionId: "abc" }, { sessionId: "abcdef" }, { sessionId: "b12" }];
const match = (wanted: string) => matchSessionId(sessions, wanted, (session) => session.sessionId);

describe("matchSessionId", () => {
  it("takes an exact id even when it is also a prefix of another", () => {
    expect(match("abc")).toEqual({ session: { sessionId: "abc" } });
  });
  it("takes a prefix that names one session", () => {
    expect(match("abcd")).toEqual({ session: { sessionId: "abcdef" } });
    expect(match("b")).toEqual({ session: { sessionId: "b12" } });
  });
  it("returns every candidate of an ambiguous prefix, and none for an unknown one", () => {
    expect(match("ab")).toEqual({ candidates: [{ sessionId: "abc" }, { sessionId: "abcdef" }] });
    expect(match("z")).toEqual({ candidates: [] });
    expect(describeFailedMatch("ab", [1, 2])).toBe(
      "2 sessions start with ab; give more of the id.",
    );
    expect(describeFailedMatch("z", [])).toBe("No session starts with z.");
  });
});
