import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { newCommand } from "./new-command.ts";

describe("/new", () => {
  it("starts a session in the same directory and switches to it", async () => {
    const recording = recordingContext({
      "session/start": ({ cwd }) => ({
        session: { sessionId: "s2", cwd: cwd ?? "/", live: true, status: "idle" },
      }),
    });
    await newCommand.run("", recording.context);
    expect(recording.server.requests).toEqual([
      { method: "session/start", params: { cwd: "/repo" } },
    ]);
    expect(recording.switchedTo).toEqual(["s2"]);
  });
});
