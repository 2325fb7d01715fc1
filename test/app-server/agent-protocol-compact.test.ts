// session/compact over a real WebSocket against `spark serve`'s wiring, with the scripted engine:
// older turns become one summary now, every attached client sees it, the log records it, and the
// next model call is sent the summary; a running turn refuses it.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_HEADER } from "../../src/agent/context/summarize-transcript.ts";
import { AgentProtocolError } from "../../src/protocol/agent/index.ts";
import {
  createScriptedWorkspace,
  EventRecorder,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";
import { startServeHarness, type ServeHarness } from "./support/serve-harness.ts";

let workspace: ScriptedWorkspace;
let harness: ServeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

const longAnswer = Array.from({ length: 400 }, (_, index) => `detail${index}`).join(" ");

describe("session/compact over WebSocket", () => {
  it("summarises the earlier turns now, tells every client, logs it and sends the summary next", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("compact", [
      { text: longAnswer },
      {
        text: "Continuing from the summary.",
        expect: { anyMessageIncludes: SUMMARY_HEADER },
      },
    ]);
    harness = await startServeHarness(workspace, model);
    const client = await harness.connect();
    const recorder = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    const watcher = await harness.connect();
    const watched = new EventRecorder(watcher);
    await watcher.request("session/attach", { sessionId });

    await client.request("turn/start", { sessionId, text: "Explain the project in detail." });
    await recorder.turnFinished();
    const result = await client.request("session/compact", { sessionId });

    expect(result.compacted).toBe(true);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore ?? 0);
    for (const events of [recorder, watched]) {
      expect(await events.next("context-compacted")).toMatchObject({
        tokensBefore: result.tokensBefore,
        tokensAfter: result.tokensAfter,
      });
    }
    const [started] = recorder.ofType("session-started");
    const log = readFileSync(started?.logPath ?? "", "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; messages?: { content: string }[] });
    const replaced = log.filter((record) => record.type === "transcript-replaced");
    expect(replaced).toHaveLength(1);
    expect(replaced[0]?.messages?.map((message) => message.content.slice(0, 40))).toEqual([
      "You are Spark, in a test.",
      SUMMARY_HEADER.slice(0, 40),
    ]);

    // The script's second turn fails the turn unless the model call carries the summary.
    await client.request("turn/start", { sessionId, text: "Go on." });
    await recorder.turnFinished(2);
    expect(recorder.ofType("error")).toEqual([]);
    // A summary plus one short turn would not shrink: nothing changes.
    const again = await client.request("session/compact", { sessionId });
    expect(again.compacted).toBe(false);
    expect(recorder.ofType("context-compacted")).toHaveLength(1);
  });

  it("says there is nothing to compact in a fresh session and refuses while a turn runs", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("busy", [{ text: longAnswer, delayMs: 5 }]);
    harness = await startServeHarness(workspace, model);
    const client = await harness.connect();
    const recorder = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    expect(await client.request("session/compact", { sessionId })).toMatchObject({
      compacted: false,
    });

    await client.request("turn/start", { sessionId, text: "Explain." });
    await recorder.next("text-delta");
    const refusal = await client
      .request("session/compact", { sessionId })
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AgentProtocolError);
    expect(refusal).toMatchObject({ code: "engine_busy" });
    await client.request("turn/interrupt", { sessionId });
    await recorder.turnFinished();
    expect(recorder.ofType("context-compacted")).toEqual([]);
  });
});
