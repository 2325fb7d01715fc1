import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { compactCommand } from "./compact-command.ts";

describe("/compact", () => {
  it("asks the server to compact and reports the sizes", async () => {
    const recording = recordingContext({
      "session/compact": () => ({ compacted: true, tokensBefore: 12_000, tokensAfter: 2_500 }),
    });
    await compactCommand.run("", recording.context);
    expect(recording.server.requests).toEqual([
      { method: "session/compact", params: { sessionId: "s1" } },
    ]);
    expect(recording.notices()).toEqual(["Compacted older turns: 12k → 2.5k tokens."]);
  });

  it("explains a server that has no session/compact instead of failing", async () => {
    const recording = recordingContext();
    await compactCommand.run("", recording.context);
    expect(recording.actions).toMatchObject([
      {
        type: "notice",
        tone: "warning",
        text: expect.stringContaining("cannot compact") as string,
      },
    ]);
  });
});
