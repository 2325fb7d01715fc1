import { describe, expect, it } from "vitest";
import { recordingContext } from "../../../test/support/slash-command-context.ts";
import { INIT_PROMPT, initCommand } from "./init-command.ts";

describe("/init", () => {
  it("sends the agent the fixed prompt to write AGENTS.md when there is none", async () => {
    const recording = recordingContext({
      "workspace/files": () => ({
        files: ["docs/AGENTS.md.txt", "src/agents.ts"],
        truncated: false,
      }),
    });
    await initCommand.run("", recording.context);
    const start = recording.server.requests.find((request) => request.method === "turn/start");
    expect(start?.params).toEqual({ sessionId: "s1", text: INIT_PROMPT });
    expect(INIT_PROMPT).toContain("AGENTS.md");
    expect(INIT_PROMPT).toMatch(/build, test/i);
    expect(recording.picks).toEqual([]);
  });

  it("asks before rewriting an existing AGENTS.md, and sends nothing when kept", async () => {
    const recording = recordingContext({
      "workspace/files": () => ({ files: ["AGENTS.md"], truncated: false }),
    });
    await initCommand.run("", recording.context);
    expect(recording.picks).toHaveLength(1);
    const pick = recording.picks[0];
    expect(pick?.options.map((option) => option.value)).toEqual(["keep", "rewrite"]);
    await pick?.onPick("keep");
    expect(recording.server.requests.map((request) => request.method)).not.toContain("turn/start");
    expect(recording.notices()).toEqual(["AGENTS.md kept as it is."]);

    await pick?.onPick("rewrite");
    const start = recording.server.requests.find((request) => request.method === "turn/start");
    expect((start?.params as { text: string }).text).toContain("AGENTS.md already exists");
  });
});
