// The agent protocol over a real WebSocket against `spark serve`'s wiring, with the scripted engine:
// a turn streams, a steer lands mid-stream, an interrupt stops it, a queued message joins it, and
// turn/start {model} switches the model.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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

const slowText = Array.from({ length: 80 }, (_, index) => `word${index}`).join(" ");

async function startSession(defaultModel: string) {
  harness = await startServeHarness(workspace, defaultModel);
  const client = await harness.connect();
  const recorder = new EventRecorder(client);
  const updates: string[] = [];
  client.onSessionUpdated((session) => updates.push(session.status));
  const { session } = await client.request("session/start", { cwd: workspace.root });
  return { client, recorder, updates, sessionId: session.sessionId };
}

describe("agent protocol turns over WebSocket", () => {
  it("streams a turn: session-started, running, text deltas, turn-finished, idle", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("hello", [{ text: "Hello from the agent." }]);
    const { client, recorder, updates, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Say hello." });
    await recorder.turnFinished();
    const text = recorder
      .ofType("text-delta")
      .map((event) => event.text)
      .join("");
    expect(text).toBe("Hello from the agent.");
    expect(recorder.types().filter((type) => type !== "text-delta")).toEqual([
      "session-started",
      "status-changed",
      "turn-started",
      "budget",
      "turn-finished",
      "status-changed",
    ]);
    expect(recorder.ofType("status-changed").map((event) => event.status)).toEqual([
      "running",
      "idle",
    ]);
    expect(updates).toContain("running");
    expect(updates.at(-1)).toBe("idle");
    const { sessions } = await client.request("session/list", {});
    expect(sessions[0]).toMatchObject({ sessionId, live: true, title: "Say hello." });
  });

  it("steers mid-stream: the partial text is kept and the model's next call sees the steer", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("steer", [
      { text: slowText, delayMs: 20 },
      { text: "Switching to French.", expect: { lastMessageIncludes: "In French please" } },
    ]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Tell me about the project." });
    await recorder.next("text-delta", (event) => event.text === " word2");
    const { delivery } = await client.request("turn/steer", {
      sessionId,
      text: "In French please",
    });
    expect(delivery).toBe("steered");
    await recorder.turnFinished();
    const [interrupted] = recorder.ofType("interrupted");
    expect(interrupted?.reason).toBe("steer");
    expect(interrupted?.partialText.startsWith("word0 word1 word2")).toBe(true);
    expect(interrupted?.partialText.length).toBeLessThan(slowText.length);
    expect(recorder.ofType("user-message")[0]).toMatchObject({
      via: "steer",
      text: "In French please",
    });
    expect(recorder.ofType("turn-finished")[0]?.reason).toBe("completed");
    expect(recorder.ofType("turn-started")).toHaveLength(1);
    // The steered reply streams without pauses, so its words may leave as one coalesced delta.
    expect(recorder.ofType("text-delta").at(-1)?.text).toMatch(/ French\.$/);
  });

  it("interrupts mid-stream: the turn ends as interrupted, and the session takes a new turn", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("interrupt", [
      { text: slowText, delayMs: 20 },
      { text: "Fresh start.", expect: { lastMessageIncludes: "Again" } },
    ]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Go." });
    await recorder.next("text-delta", (event) => event.text === " word1");
    expect(await client.request("turn/interrupt", { sessionId })).toEqual({ interrupted: true });
    await recorder.turnFinished();
    expect(recorder.ofType("interrupted")[0]?.reason).toBe("interrupt");
    expect(recorder.ofType("turn-finished")[0]?.reason).toBe("interrupted");
    expect(await client.request("turn/interrupt", { sessionId })).toEqual({ interrupted: false });
    await client.request("turn/start", { sessionId, text: "Again" });
    await recorder.turnFinished(2);
    expect(recorder.ofType("turn-finished")[1]?.reason).toBe("completed");
  });

  it("queues a message for after the current step, and starts a turn when idle", async () => {
    workspace = createScriptedWorkspace();
    workspace.write("a.txt", "alpha\n");
    const model = workspace.script("queue", [
      {
        text: "Reading a now.",
        toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }],
        delayMs: 20,
      },
      { text: "Noted, b too.", expect: { lastMessageIncludes: "also look at b" } },
      { text: "Idle start.", expect: { lastMessageIncludes: "a new one" } },
    ]);
    const { client, recorder, sessionId } = await startSession(model);
    await client.request("turn/start", { sessionId, text: "Look at a." });
    await recorder.next("text-delta", (event) => event.text === "Reading");
    expect(await client.request("turn/queue", { sessionId, text: "also look at b" })).toEqual({
      delivery: "queued",
    });
    await recorder.turnFinished();
    expect(recorder.ofType("interrupted")).toHaveLength(0);
    expect(recorder.ofType("user-message")[0]).toMatchObject({ via: "queue" });
    expect(recorder.ofType("turn-finished")[0]?.reason).toBe("completed");
    expect(await client.request("turn/queue", { sessionId, text: "a new one" })).toEqual({
      delivery: "started",
    });
    await recorder.turnFinished(2);
    expect(recorder.ofType("turn-finished")[1]?.reason).toBe("completed");
  });

  it("refuses turn/start while a turn runs, and switches model between turns", async () => {
    workspace = createScriptedWorkspace();
    const first = workspace.script("first", [{ text: slowText, delayMs: 10 }]);
    const secondScript = workspace.script("second", [{ text: "From the second model." }]);
    writeFileSync(
      path.join(workspace.sparkHome, "config.toml"),
      `[models.second]\nengine = "script"\npath = ${JSON.stringify(secondScript.slice("script:".length))}\n`,
    );
    const second = "second";
    const { client, recorder, sessionId } = await startSession(first);
    const { models, defaultModel } = await client.request("model/list", {});
    expect(defaultModel).toBe(first);
    expect(models.map((entry) => entry.id)).toEqual([first, "second"]);
    // Only offered models: a client may not point the server at files of its choosing.
    await expect(
      client.request("turn/start", { sessionId, text: "x", model: "script:/etc/hosts" }),
    ).rejects.toMatchObject({ code: "model_not_found" });
    await expect(client.request("session/start", { model: "/tmp/any.gguf" })).rejects.toMatchObject(
      { code: "model_not_found" },
    );
    await client.request("turn/start", { sessionId, text: "One." });
    await expect(client.request("turn/start", { sessionId, text: "Two." })).rejects.toMatchObject({
      code: "engine_busy",
    });
    await client.request("turn/interrupt", { sessionId });
    await recorder.turnFinished();
    await client.request("turn/start", { sessionId, text: "Three.", model: second });
    await recorder.turnFinished(2);
    expect(recorder.ofType("model-changed")).toEqual([{ type: "model-changed", model: second }]);
    const changedAt = recorder.types().indexOf("model-changed");
    expect(changedAt).toBeLessThan(recorder.types().lastIndexOf("turn-started"));
    expect(
      recorder
        .ofType("text-delta")
        .map((event) => event.text)
        .join(""),
    ).toContain("From the second model.");
  });
});
