import { describe, expect, it } from "vitest";
import { AgentProtocolError } from "../../protocol/agent/json-rpc.ts";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { undoCommand } from "./undo-command.ts";

describe("/undo", () => {
  it("asks the server to undo the session's last edit, with force when given", async () => {
    const recording = recordingContext({
      "edit/undo": () => ({ undoEntryId: "u1", files: [{ path: "a.ts", action: "restored" }] }),
    });
    await undoCommand.run("", recording.context);
    await undoCommand.run("force", recording.context);
    expect(recording.server.requests.map((request) => request.params)).toEqual([
      { sessionId: "s1" },
      { sessionId: "s1", force: true },
    ]);
    expect(recording.actions).toEqual([]);
  });

  it("shows the server's refusal as an error", async () => {
    const recording = recordingContext({
      "edit/undo": () => {
        throw new AgentProtocolError("agent_error", "Nothing to undo in this session.");
      },
    });
    await undoCommand.run("", recording.context);
    expect(recording.actions).toEqual([
      { type: "error", message: "Nothing to undo in this session.", code: "agent_error" },
    ]);
  });
});
