import { describe, expect, it } from "vitest";
import { AgentProtocolError } from "../../protocol/agent/json-rpc.ts";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { compactCommand } from "./compact-command.ts";

describe("/compact", () => {
  it("asks the server to compact and leaves the report to the session's context-compacted event", async () => {
    const recording = recordingContext({
      "session/compact": () => ({ compacted: true, tokensBefore: 12_000, tokensAfter: 2_500 }),
    });
    await compactCommand.run("", recording.context);
    expect(recording.server.requests).toEqual([
      { method: "session/compact", params: { sessionId: "s1" } },
    ]);
    // The event reaches every attached client, this one included: a notice here would be a second.
    expect(recording.actions).toEqual([]);
  });

  it("says when there is nothing to compact", async () => {
    const recording = recordingContext({
      "session/compact": () => ({ compacted: false, tokensBefore: 40, tokensAfter: 40 }),
    });
    await compactCommand.run("", recording.context);
    expect(recording.notices()).toEqual(["Nothing to compact yet."]);
  });

  it("shows the server's refusal while a turn runs as an error", async () => {
    const recording = recordingContext({
      "session/compact": () => {
        throw new AgentProtocolError("engine_busy", "A turn is running; wait for it to finish.");
      },
    });
    await compactCommand.run("", recording.context);
    expect(recording.actions).toEqual([
      { type: "error", message: "A turn is running; wait for it to finish.", code: "engine_busy" },
    ]);
  });
});
