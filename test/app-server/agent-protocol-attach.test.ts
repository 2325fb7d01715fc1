// Several clients on one session over real WebSockets: they see identical event sequences, a
// reconnect with lastSequence loses and duplicates nothing, a session outlives its clients, and a
// logged session is resumed from its JSONL log with its history.
import { afterEach, describe, expect, it } from "vitest";
import type { SessionEventNotification } from "../../src/protocol/agent/index.ts";
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

const slowText = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");
const sequencesOf = (notifications: SessionEventNotification[]): number[] =>
  notifications.map((notification) => notification.sequence);

describe("agent protocol attach and replay over WebSocket", () => {
  it("two clients on one session see identical event sequences; either may steer", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("two", [
      { text: slowText, delayMs: 10 },
      { text: "Steered by B.", expect: { lastMessageIncludes: "from B" } },
    ]);
    harness = await startServeHarness(workspace, model);
    const clientA = await harness.connect();
    const clientB = await harness.connect();
    const recorderA = new EventRecorder(clientA);
    const recorderB = new EventRecorder(clientB);
    const { session } = await clientA.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await expect(clientB.request("turn/steer", { sessionId, text: "x" })).rejects.toMatchObject({
      code: "not_attached",
    });
    const attached = await clientB.request("session/attach", { sessionId, lastSequence: 0 });
    expect(attached.replayedEvents).toBe(1);
    await clientA.request("turn/start", { sessionId, text: "Talk." });
    await recorderB.next("text-delta", (event) => event.text === " word3");
    await clientB.request("turn/steer", { sessionId, text: "from B" });
    await recorderA.turnFinished();
    await recorderB.turnFinished();
    expect(recorderB.notifications).toEqual(recorderA.notifications);
    expect(sequencesOf(recorderA.notifications)).toEqual(
      recorderA.notifications.map((_, index) => index + 1),
    );
    expect(recorderA.ofType("user-message")[0]).toMatchObject({ text: "from B", via: "steer" });
  });

  it("a client reconnecting with lastSequence gets exactly what it missed; the session kept running", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("reconnect", [{ text: slowText, delayMs: 10 }]);
    harness = await startServeHarness(workspace, model);
    const watcher = await harness.connect();
    const watcherEvents = new EventRecorder(watcher);
    const first = await harness.connect();
    const firstEvents = new EventRecorder(first);
    const { session } = await first.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await watcher.request("session/attach", { sessionId, lastSequence: 0 });
    await first.request("turn/start", { sessionId, text: "Talk." });
    await firstEvents.next("text-delta", (event) => event.text === " word5");
    first.close();
    // The turn goes on while no one who started it is connected.
    await watcherEvents.next("text-delta", (event) => event.text === " word30");
    const second = await harness.connect();
    second.rememberSequences(first);
    const secondEvents = new EventRecorder(second);
    const lastSeen = first.lastSequence(sessionId);
    const attached = await second.request("session/attach", { sessionId, lastSequence: lastSeen });
    expect(attached.replayedEvents).toBeGreaterThan(0);
    expect(attached.history).toBeUndefined();
    await watcherEvents.turnFinished();
    await secondEvents.turnFinished();
    const combined = [...firstEvents.notifications, ...secondEvents.notifications];
    expect(sequencesOf(combined)).toEqual(sequencesOf(watcherEvents.notifications));
    expect(combined).toEqual(watcherEvents.notifications);
    expect(secondEvents.notifications[0]?.sequence).toBe(lastSeen + 1);
  });

  it("answers replay_gap for a lastSequence ahead of the session, and history without one", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("gap", [{ text: "Short answer." }]);
    harness = await startServeHarness(workspace, model);
    const client = await harness.connect();
    const events = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    await client.request("turn/start", { sessionId: session.sessionId, text: "Hi there." });
    await events.turnFinished();
    const other = await harness.connect();
    await expect(
      other.request("session/attach", { sessionId: session.sessionId, lastSequence: 10_000 }),
    ).rejects.toMatchObject({
      code: "replay_gap",
      message: expect.stringContaining("without lastSequence") as unknown,
    });
    const attached = await other.request("session/attach", { sessionId: session.sessionId });
    expect(attached.replayedEvents).toBe(0);
    expect(attached.history).toEqual([
      { role: "user", text: "Hi there." },
      { role: "assistant", text: "Short answer." },
    ]);
    await expect(
      other.request("session/attach", { sessionId: "no-such-session" }),
    ).rejects.toMatchObject({ code: "session_not_found" });
  });

  it("a client that saw a session before a server restart gets its resumed events, numbered after what it saw", async () => {
    workspace = createScriptedWorkspace();
    const model = workspace.script("restart", [{ text: "Answer." }]);
    harness = await startServeHarness(workspace, model);
    const before = await harness.connect();
    const beforeEvents = new EventRecorder(before);
    const { session } = await before.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await before.request("turn/start", { sessionId, text: "Question" });
    await beforeEvents.turnFinished();
    const seen = before.lastSequence(sessionId);
    await harness.close();

    harness = await startServeHarness(workspace, model);
    const after = await harness.connect();
    after.rememberSequences(before);
    const afterEvents = new EventRecorder(after);
    const attached = await after.request("session/attach", { sessionId, lastSequence: seen });
    expect(attached.replayedEvents).toBe(1);
    expect(attached.history?.map((item) => item.text)).toEqual(["Question", "Answer."]);
    expect(afterEvents.notifications).toEqual([
      expect.objectContaining({
        sequence: seen + 1,
        event: expect.objectContaining({ type: "session-started" }) as unknown,
      }),
    ]);
    expect(attached.session.lastSequence).toBe(seen + 1);
  });

  it("lists logged sessions and resumes one from its log on attach, with its history", async () => {
    workspace = createScriptedWorkspace();
    // Each session gets its own script engine, read from the top: the resumed session's turn is
    // answered by this line again, and passes only if the old transcript is in its prompt.
    const model = workspace.script("resume", [
      { text: "First answer.", expect: { anyMessageIncludes: "First question" } },
    ]);
    harness = await startServeHarness(workspace, model);
    const client = await harness.connect();
    const events = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await client.request("turn/start", { sessionId, text: "First question" });
    await events.turnFinished();
    await harness.close();

    harness = await startServeHarness(workspace, model);
    const later = await harness.connect();
    const laterEvents = new EventRecorder(later);
    const { sessions } = await later.request("session/list", {});
    expect(sessions).toEqual([
      expect.objectContaining({ sessionId, live: false, title: "First question" }),
    ]);
    const attached = await later.request("session/attach", { sessionId });
    expect(attached.session).toMatchObject({ sessionId, live: true, cwd: workspace.root });
    expect(attached.history?.map((item) => item.text)).toEqual(["First question", "First answer."]);
    expect(laterEvents.ofType("session-started")[0]).toMatchObject({ sessionId, resumed: true });
    expect(laterEvents.notifications[0]?.sequence).toBe(1);
    await later.request("turn/start", { sessionId, text: "Next" });
    await laterEvents.turnFinished();
    expect(laterEvents.ofType("turn-finished")[0]?.reason).toBe("completed");
  });
  it("coalesces a fast turn's text deltas per tick: gapless sequences, same text, exact replay", async () => {
    workspace = createScriptedWorkspace();
    const words = Array.from({ length: 400 }, (_, index) => `w${index}`);
    const model = workspace.script("fast", [{ text: words.join(" ") }]);
    harness = await startServeHarness(workspace, model);
    const client = await harness.connect();
    const recorder = new EventRecorder(client);
    const { session } = await client.request("session/start", { cwd: workspace.root });
    const sessionId = session.sessionId;
    await client.request("turn/start", { sessionId, text: "Go fast." });
    await recorder.turnFinished();
    const deltas = recorder.ofType("text-delta");
    expect(deltas.map((event) => event.text).join("")).toBe(words.join(" "));
    // Words that reach the app server in one tick leave as one notification.
    expect(deltas.length).toBeLessThan(words.length);
    expect(sequencesOf(recorder.notifications)).toEqual(
      recorder.notifications.map((_, index) => index + 1),
    );
    const late = await harness.connect();
    const replayed = new EventRecorder(late);
    const attached = await late.request("session/attach", { sessionId, lastSequence: 0 });
    expect(attached.replayedEvents).toBe(recorder.notifications.length);
    await replayed.turnFinished();
    expect(replayed.notifications).toEqual(recorder.notifications);
  });
});
