// The store against a scripted peer on the in-memory transport: what it asks the server, and how
// it folds what comes back (the real server is driven from the browser tests in test/web/).
import { describe, expect, it } from "vitest";
import { AppStore } from "./app-store.ts";
import {
  createStore,
  FakeServer,
  memoryStorage,
  session,
  settle,
  textDelta,
} from "./app-store-test-support.ts";

describe("AppStore", () => {
  it("lists sessions, attaches the one opened and folds its events", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    store.start();
    await settle();
    expect(store.getState().connection).toBe("open");
    expect(store.getState().sessions.map((entry) => entry.sessionId)).toEqual(["s1", "s2"]);
    await store.openSession("s1");
    await settle();
    expect(server.calls("session/attach")).toEqual([{ sessionId: "s1", lastSequence: 0 }]);
    server.emit("s1", 1, { type: "turn-started", turnId: "t1", text: "Hello" });
    server.emit("s1", 2, textDelta("Hi"));
    server.emit("s2", 1, textDelta("elsewhere"));
    await settle();
    expect(store.getState().view.lastSequence).toBe(2);
    expect(store.getState().view.transcript.items.map((item) => item.kind)).toEqual([
      "user",
      "assistant",
    ]);
    expect(store.getState().files.paths).toEqual(["src/a.ts"]);
  });

  it("tells its listeners once per frame however many events arrived", async () => {
    const server = new FakeServer();
    const frames: (() => void)[] = [];
    const store = createStore(server, memoryStorage(), frames);
    let renders = 0;
    store.subscribe(() => (renders += 1));
    store.start();
    await store.openSession("s1");
    await settle();
    for (const callback of frames.splice(0)) callback();
    renders = 0;
    for (let sequence = 1; sequence <= 500; sequence += 1)
      server.emit("s1", sequence, textDelta("x"));
    await settle();
    expect(frames.length).toBe(1);
    frames.splice(0)[0]?.();
    expect(renders).toBe(1);
    expect(store.getState().view.transcript.items[0]).toMatchObject({ text: "x".repeat(500) });
  });

  it("re-attaches after a dropped connection from the last sequence it saw", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    store.start();
    await store.openSession("s1");
    await settle();
    server.emit("s1", 1, textDelta("a"));
    server.emit("s1", 2, textDelta("b"));
    await settle();
    server.ends[0]?.close(1006, "network");
    await settle();
    expect(server.ends.length).toBe(2);
    expect(server.calls("session/attach").at(-1)).toEqual({ sessionId: "s1", lastSequence: 2 });
    server.emit("s1", 2, textDelta("b"));
    server.emit("s1", 3, textDelta("c"));
    await settle();
    expect(store.getState().view.transcript.items[0]).toMatchObject({ text: "abc" });
  });

  it("after a reload, restores the view from session storage and asks only for what is newer", async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    const first = createStore(server, storage);
    first.start();
    await first.openSession("s1");
    await settle();
    server.emit("s1", 1, { type: "turn-started", turnId: "t1", text: "Hello" });
    server.emit("s1", 2, textDelta("Hi"));
    await settle();
    first.saveSnapshot();
    first.stop();

    const reloaded = createStore(server, storage);
    reloaded.start();
    await settle();
    expect(reloaded.getState().currentSessionId).toBe("s1");
    expect(server.calls("session/attach").at(-1)).toEqual({ sessionId: "s1", lastSequence: 2 });
    server.emit("s1", 3, textDelta(" there"));
    await settle();
    expect(
      reloaded
        .getState()
        .view.transcript.items.map((item) =>
          item.kind === "assistant" || item.kind === "user" ? item.text : "",
        ),
    ).toEqual(["Hello", "Hi there"]);
  });

  it("clears the not-connected banner once the connection is back", async () => {
    const server = new FakeServer();
    const retries: (() => void)[] = [];
    const store = new AppStore({
      openTransport: server.open,
      scheduleFrame: (callback) => callback(),
      setTimer: (callback) => retries.push(callback),
    });
    store.start();
    await store.openSession("s1");
    await settle();
    server.ends[0]?.close(1006, "network");
    await settle();
    expect(store.getState().connection).toBe("reconnecting");
    // Sent in the gap before the reconnect: refused, with the banner.
    expect(await store.send("hello?")).toBe(false);
    expect(store.getState().flash?.text).toContain("Not connected");
    retries.splice(0).forEach((retry) => retry());
    await settle();
    expect(store.getState().connection).toBe("open");
    expect(store.getState().flash).toBeUndefined();
  });

  it("after a reload, times nothing from events replayed or from the old page's clock", async () => {
    const server = new FakeServer();
    const storage = memoryStorage();
    let clock = 10_000;
    const first = createStore(server, storage, [], () => clock);
    first.start();
    await first.openSession("s1");
    await settle();
    server.emit("s1", 1, { type: "turn-started", turnId: "t1", text: "Hello" });
    await settle();
    first.saveSnapshot();
    first.stop();
    // The reloaded page's clock starts again near zero; the server replays what it missed first.
    clock = 50;
    server.answers["session/attach"] = (params) => {
      server.emit("s1", 2, textDelta("Hi"));
      return { session: session(String(params.sessionId), "running"), replayedEvents: 1 };
    };
    const reloaded = createStore(server, storage, [], () => clock);
    reloaded.start();
    await settle();
    clock = 80;
    server.emit("s1", 3, textDelta(" there"));
    await settle();
    expect(reloaded.getState().view.stats.timeToFirstTokenMs).toBeUndefined();
    expect(reloaded.getState().view.transcript.items.at(-1)).toMatchObject({ text: "Hi there" });
  });

  it("undoes later edits first to reach an older one, and reports a refused upload", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    let undone = 0;
    server.answers["edit/undo"] = () => ({ undoEntryId: ++undone === 1 ? "u2" : "u1", files: [] });
    store.start();
    await store.openSession("s1");
    await settle();
    for (const [sequence, id] of [
      [1, "u1"],
      [2, "u2"],
    ] as const) {
      server.emit("s1", sequence, {
        type: "edit-applied",
        turnId: "t1",
        callId: id,
        path: `${id}.ts`,
        kind: "update",
        unifiedDiff: "",
        linesAdded: 1,
        linesRemoved: 0,
        undoEntryId: id,
      });
    }
    await settle();
    await store.undo("u1");
    expect(server.calls("edit/undo").length).toBe(2);
    store.addUpload("huge.txt", new Uint8Array(300 * 1024));
    expect(store.getState().flash?.text).toContain("capped at 256 KB");
    expect(store.getState().uploads).toEqual([]);
  });

  it("refuses an oversized picked file by its size, without reading it", async () => {
    const store = createStore(new FakeServer(), memoryStorage());
    let reads = 0;
    const file = (name: string, size: number) => ({
      name,
      size,
      arrayBuffer: () => {
        reads += 1;
        return Promise.resolve(new TextEncoder().encode("x".repeat(size)).buffer);
      },
    });
    await store.addUploadFrom(file("huge.log", 2 * 1024 * 1024 * 1024));
    expect(reads).toBe(0);
    expect(store.getState().flash?.text).toContain("capped at 256 KB");
    await store.addUploadFrom(file("small.txt", 5));
    expect(reads).toBe(1);
    expect(store.getState().uploads.map((upload) => upload.text)).toEqual(["xxxxx"]);
  });

  it("after a replay gap, starts the view over from the session's history", async () => {
    const server = new FakeServer();
    server.failures["session/attach"] = (params) =>
      params.lastSequence === undefined ? undefined : "replay_gap";
    server.answers["session/attach"] = (params) => ({
      session: session(String(params.sessionId)),
      replayedEvents: 0,
      history: [
        { role: "user", text: "Earlier task" },
        { role: "assistant", text: "Earlier answer" },
      ],
    });
    const store = createStore(server, memoryStorage());
    store.start();
    await store.openSession("s1");
    await settle();
    expect(server.calls("session/attach")).toEqual([
      { sessionId: "s1", lastSequence: 0 },
      { sessionId: "s1" },
    ]);
    expect(store.getState().view.transcript.items.map((item) => item.kind)).toEqual([
      "user",
      "assistant",
    ]);
    server.emit("s1", 12_001, textDelta("live again"));
    await settle();
    expect(store.getState().view.transcript.items.at(-1)).toMatchObject({ text: "live again" });
    expect(store.getState().flash).toBeUndefined();
  });
});
