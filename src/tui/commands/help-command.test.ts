import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { helpCommand } from "./help-command.ts";

describe("/help", () => {
  it("lists every command and the keys", async () => {
    const recording = recordingContext();
    await helpCommand.run("", recording.context);
    const text = recording.notices()[0] ?? "";
    for (const command of recording.context.commands) expect(text).toContain(`/${command.name}`);
    expect(text).toContain("Esc");
    expect(text).toContain("Tab");
  });
});
