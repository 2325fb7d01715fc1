import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { modelCommand } from "./model-command.ts";

describe("/model", () => {
  it("offers the server's models and sets the one picked for the next turn", async () => {
    const recording = recordingContext({
      "model/list": () => ({
        models: [{ id: "fast", engine: "llama-cpp" }, { id: "big" }],
        defaultModel: "fast",
      }),
    });
    await modelCommand.run("", recording.context);
    const pick = recording.picks[0];
    expect(pick?.options.map((option) => [option.value, option.detail])).toEqual([
      ["fast", "llama-cpp, default"],
      ["big", ""],
    ]);
    await pick?.onPick("big");
    expect(recording.nextModels).toEqual(["big"]);
    expect(recording.notices()).toEqual(["The next turn uses big."]);
  });

  it("takes a name directly", async () => {
    const recording = recordingContext();
    await modelCommand.run("script:turns.jsonl", recording.context);
    expect(recording.nextModels).toEqual(["script:turns.jsonl"]);
    expect(recording.server.requests).toEqual([]);
  });
});
