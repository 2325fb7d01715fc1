import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { quitCommand } from "./quit-command.ts";

describe("/quit", () => {
  it("quits", async () => {
    const recording = recordingContext();
    await quitCommand.run("", recording.context);
    expect(recording.quit).toBe(1);
  });
});
