import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { initialSessionViewState, reduceSessionView } from "../state/session-view-state.ts";
import { outputCommand } from "./output-command.ts";

describe("/output", () => {
  it("shows every line of the latest command's output, and says so when none ran", async () => {
    const body = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
    const ran = reduceSessionView(
      initialSessionViewState("s1"),
      {
        type: "session-event",
        at: 0,
        event: {
          type: "tool-call",
          turnId: "t1",
          callId: "c1",
          name: "run_command",
          arguments: "{}",
          summary: "run_command seq 30",
        },
      },
      {
        type: "session-event",
        at: 1,
        event: {
          type: "tool-result",
          turnId: "t1",
          callId: "c1",
          name: "run_command",
          isError: false,
          output: `${body.join("\n")}\n[exit code 0]`,
          durationMs: 5,
        },
      },
    );
    // The transcript keeps the last 4 lines in view.
    expect(ran.finished.at(-1)).toMatchObject({
      kind: "tool-call",
      commandOutcome: { tail: body.slice(-4) },
    });
    const recording = recordingContext({}, ran);
    await outputCommand.run("", recording.context);
    const shown = recording.viewAfter().finished.slice(ran.finished.length);
    expect(shown).toMatchObject([{ kind: "command-output", lines: body }]);

    const none = recordingContext();
    await outputCommand.run("", none.context);
    expect(none.viewAfter().finished).toMatchObject([
      { kind: "notice", text: "No command has run in this session yet." },
    ]);
  });
});
