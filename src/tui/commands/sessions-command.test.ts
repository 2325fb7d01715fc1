import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { sessionsCommand } from "./sessions-command.ts";

describe("/sessions", () => {
  it("lists sessions and marks this one", async () => {
    const recording = recordingContext({
      "session/list": () => ({
        sessions: [
          { sessionId: "s1", cwd: "/repo", live: true, status: "running", title: "fix tests" },
          { sessionId: "s0", cwd: "/repo", live: false, status: "idle" },
        ],
      }),
    });
    await sessionsCommand.run("", recording.context);
    expect(recording.notices()).toEqual([
      "Sessions (* is this one; /resume <id> to switch):\n" +
        "* s1  fix tests — running, /repo\n" +
        "  s0  (no messages) — saved, /repo",
    ]);
  });

  it("says when there are none", async () => {
    const recording = recordingContext({ "session/list": () => ({ sessions: [] }) });
    await sessionsCommand.run("", recording.context);
    expect(recording.notices()).toEqual(["No sessions yet."]);
  });
});
