import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { initialSessionViewState, reduceSessionView } from "../state/session-view-state.ts";
import { diffCommand } from "./diff-command.ts";

describe("/diff", () => {
  it("shows the edits still in place, as diffs, and says so when there are none", async () => {
    const edited = reduceSessionView(initialSessionViewState("s1"), {
      type: "session-event",
      at: 0,
      event: {
        type: "edit-applied",
        turnId: "t1",
        callId: "c1",
        path: "src/a.ts",
        kind: "update",
        unifiedDiff: "-old\n+new",
        linesAdded: 1,
        linesRemoved: 1,
        undoEntryId: "u1",
      },
    });
    const recording = recordingContext({}, edited);
    await diffCommand.run("", recording.context);
    const shown = recording.viewAfter().finished.slice(edited.finished.length);
    expect(shown).toMatchObject([
      { kind: "notice", text: "Edits in this session (1, oldest first):" },
      { kind: "edit", path: "src/a.ts", unifiedDiff: "-old\n+new" },
    ]);

    const empty = recordingContext();
    await diffCommand.run("", empty.context);
    expect(empty.viewAfter().finished).toMatchObject([
      { kind: "notice", text: "No edits in this session yet." },
    ]);
  });
});
