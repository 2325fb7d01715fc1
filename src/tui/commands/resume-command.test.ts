import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { resumeCommand } from "./resume-command.ts";

const sessions = [
  { sessionId: "s1", cwd: "/repo", live: true, status: "idle" as const, title: "this one" },
  {
    sessionId: "abc-123",
    cwd: "/repo",
    live: false,
    status: "idle" as const,
    title: "rename the helper",
    startedAt: "2026-11-20T10:11:12.000Z",
  },
  { sessionId: "abd-456", cwd: "/repo", live: true, status: "running" as const },
];

describe("/resume", () => {
  it("offers the other sessions and switches to the one picked", async () => {
    const recording = recordingContext({ "session/list": () => ({ sessions }) });
    await resumeCommand.run("", recording.context);
    const pick = recording.picks[0];
    expect(pick?.options.map((option) => option.value)).toEqual(["abc-123", "abd-456"]);
    expect(pick?.options[0]?.detail).toBe("2026-11-20 10:11 rename the helper — saved, /repo");
    await pick?.onPick("abd-456");
    expect(recording.switchedTo).toEqual(["abd-456"]);
  });

  it("takes an id prefix, and says when it matches none or several", async () => {
    const recording = recordingContext({ "session/list": () => ({ sessions }) });
    await resumeCommand.run("abc", recording.context);
    await resumeCommand.run("ab", recording.context);
    await resumeCommand.run("zz", recording.context);
    expect(recording.switchedTo).toEqual(["abc-123"]);
    expect(recording.notices()).toEqual([
      "2 sessions start with ab; give more of the id.",
      "No session starts with zz.",
    ]);
  });
});
