// The store against a scripted peer on the in-memory transport: what it asks the server, and how
// it folds what comes back (the real server is driven from the browser tests in test/web/).
import { describe, expect, it } from "vitest";
import {
  createInMemoryTransportPair,
  type MessageTransport,
  type SessionEvent,
} from "../../../src/protocol/agent/index.ts";
import { AppStore } from "./app-store.ts";
import type { StorageLike } from "./view-storage.ts";

interface Request {
  id: number;
  method: string;
  params: Record<string, unknown>;
}

const session = (sessionId: string, status = "idle") => ({
  sessionId,
  cwd: "/work",
  live: true,
  status,
  model: "script",
});

/** A peer that answers every method with `answers[method]` and records the requests. */
class FakeServer {
  readonly requests: Request[] = [];
  readonly ends: MessageTransport[] = [];
  answers: Record<string, (params: Record<string, unknown>) => unknown> = {
    "session/list": () => ({ sessions: [session("s1"), session("s2", "running")] }),
    "model/list": () => ({ models: [{ id: "script" }], defaultModel: "script" }),
    "session/attach": (params) => ({
      session: session(String(params.sessionId)),
      replayedEvents: 0,
    }),
    "session/detach": () => ({ detached: true }),
    "workspace/files": () => ({ files: ["src/a.ts"], truncated: false }),
    "turn/start": () => ({ started: true }),
    "turn/steer": () => ({ delivery: "steered" }),
    "turn/queue": () => ({ delivery: "queued" }),
    "edit/undo": () => ({ undoEntryId: "u1", files: [] }),
  };

  /** Methods answered with a JSON-RPC error instead, by string code. */
  failures: Record<string, (params: Record<string, unknown>) => string | undefined> = {};

  open = async (): Promise<MessageTransport> => {
    const [client, server] = createInMemoryTransportPair();
    this.ends.push(server);
    server.onMessage((text) => {
      const request = JSON.parse(text) as Request;
      this.requests.push(request);
      const failure = this.failures[request.method]?.(request.params);
      if (failure !== undefined) {
        server.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: request.id,
            error: { code: -32004, message: "gap", data: { code: failure } },
          }),
        );
        return;
      }
      const answer = this.answers[request.method];
      server.send(
        JSON.stringify({ jsonrpc: "2.0", id: request.id, result: answer?.(request.params) ?? {} }),
      );
    });
    return client;
  };

  emit(sessionId: string, sequence: number, event: SessionEvent): void {
    this.ends.at(-1)?.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/event",
        params: { sessionId, sequence, event },
      }),
    );
  }

  calls(method: string): Record<string, unknown>[] {
    return this.requests
      .filter((request) => request.method === method)
      .map((request) => request.params);
  }
}

function memoryStorage(): StorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

const settle = async (): Promise<void> => {
  for (let round = 0; round < 20; round += 1)
    await new Promise((resolve) => setTimeout(resolve, 0));
};

function createStore(server: FakeServer, storage: StorageLike, frames: (() => void)[] = []) {
  let route: string | undefined;
  const store = new AppStore({
    openTransport: server.open,
    storage,
    scheduleFrame: (callback) => frames.push(callback),
    route: { read: () => route, write: (id) => void (route = id) },
    setTimer: (callback) => setTimeout(callback, 0),
  });
  return store;
}

const textDelta = (text: string): SessionEvent => ({ type: "text-delta", turnId: "t1", text });

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

  it("starts a turn when idle, steers while running, queues on request, with attachments in the text", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    store.start();
    await store.openSession("s1");
    await settle();
    store.toggleAttachedFile("src/a.ts");
    expect(await store.send("Read it")).toBe(true);
    expect(server.calls("turn/start")).toEqual([
      { sessionId: "s1", text: "Read it\n\nFiles from the workspace to look at:\n- @src/a.ts" },
    ]);
    expect(store.getState().attachedFiles).toEqual([]);
    server.emit("s1", 1, { type: "status-changed", status: "running" });
    await settle();
    await store.send("no, the other one");
    await store.send("then run the tests", "queue");
    expect(server.calls("turn/steer")).toEqual([{ sessionId: "s1", text: "no, the other one" }]);
    expect(server.calls("turn/queue")).toEqual([{ sessionId: "s1", text: "then run the tests" }]);
    expect(store.getState().sessions.find((entry) => entry.sessionId === "s1")?.status).toBe(
      "running",
    );
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
