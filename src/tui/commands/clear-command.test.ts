import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { clearCommand } from "./clear-command.ts";

describe("/clear", () => {
  it("clears the screen and leaves the session alone", async () => {
    const recording = recordingContext();
    await clearCommand.run("", recording.context);
    expect(recording.cleared).toBe(1);
    expect(recording.server.requests).toEqual([]);
  });
});
