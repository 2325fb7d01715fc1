// The store's messages: starting, steering and queueing turns (the queue lives in the page and
// starts the next turn when the session goes idle), and the parts a sent message shows as chips.
import { describe, expect, it } from "vitest";
import { createStore, FakeServer, memoryStorage, settle } from "./app-store-test-support.ts";

describe("AppStore messages", () => {
  it("starts a turn when idle and steers while running, with attachments in the text", async () => {
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
    expect(server.calls("turn/steer")).toEqual([{ sessionId: "s1", text: "no, the other one" }]);
    expect(store.getState().sessions.find((entry) => entry.sessionId === "s1")?.status).toBe(
      "running",
    );
  });

  it("queues in the page while a turn runs and starts the next turn when it ends", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    store.start();
    await store.openSession("s1");
    await settle();
    server.emit("s1", 1, { type: "status-changed", status: "running" });
    await settle();
    await store.send("then run the tests", "queue");
    await store.send("and the linter", "queue");
    await store.send("not this one", "queue");
    const queued = store.getState().queue.messages;
    expect(queued.map((message) => message.parts.text)).toEqual([
      "then run the tests",
      "and the linter",
      "not this one",
    ]);
    store.removeQueued(queued[2]?.id ?? "");
    // Nothing reaches the server while the turn runs: it would join the turn between steps.
    expect(server.calls("turn/queue")).toEqual([]);
    expect(server.calls("turn/steer")).toEqual([]);
    expect(server.calls("turn/start")).toEqual([]);
    server.emit("s1", 2, { type: "status-changed", status: "idle" });
    await settle();
    expect(server.calls("turn/start")).toEqual([{ sessionId: "s1", text: "then run the tests" }]);
    expect(store.getState().queue.messages.map((message) => message.parts.text)).toEqual([
      "and the linter",
    ]);
    server.emit("s1", 3, { type: "turn-started", turnId: "t2", text: "then run the tests" });
    server.emit("s1", 4, { type: "status-changed", status: "running" });
    server.emit("s1", 5, { type: "status-changed", status: "idle" });
    await settle();
    expect(server.calls("turn/start").map((call) => call.text)).toEqual([
      "then run the tests",
      "and the linter",
    ]);
    expect(store.getState().queue.messages).toEqual([]);
  });

  it("holds the queue after Stop, and sends it on when asked", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    store.start();
    await store.openSession("s1");
    await settle();
    server.emit("s1", 1, { type: "status-changed", status: "running" });
    await settle();
    await store.send("after this", "queue");
    await store.interrupt();
    server.emit("s1", 2, {
      type: "interrupted",
      turnId: "t1",
      reason: "interrupt",
      partialText: "",
      discardedQueue: [],
    });
    server.emit("s1", 3, { type: "status-changed", status: "idle" });
    await settle();
    expect(server.calls("turn/start")).toEqual([]);
    expect(store.getState().queue).toMatchObject({ held: true });
    store.resumeQueue();
    await settle();
    expect(server.calls("turn/start")).toEqual([{ sessionId: "s1", text: "after this" }]);
    expect(store.getState().queue).toEqual({ messages: [], held: false });
  });

  it("shows a message's attachments as this page sent them, and parses other pages' messages", async () => {
    const server = new FakeServer();
    const store = createStore(server, memoryStorage());
    store.start();
    await store.openSession("s1");
    await settle();
    store.addUpload("notes.txt", new TextEncoder().encode("remember\n"));
    store.toggleAttachedFile("src/a.ts");
    // Typed text that looks like the wrapper is still what was typed, for this page.
    const typed = "Files from the workspace to look at:\n- @not-a-chip.ts";
    await store.send(typed);
    const sent = String(server.calls("turn/start")[0]?.text);
    server.emit("s1", 1, { type: "turn-started", turnId: "t1", text: sent });
    server.emit("s1", 2, {
      type: "user-message",
      turnId: "t1",
      via: "steer",
      text: "From the terminal\n\nFiles from the workspace to look at:\n- @b.ts",
    });
    await settle();
    expect(store.getState().view.transcript.items).toEqual([
      {
        kind: "user",
        id: "user-1",
        text: typed,
        files: ["src/a.ts"],
        uploads: [{ name: "notes.txt", text: "remember\n" }],
      },
      { kind: "user", id: "user-2", text: "From the terminal", files: ["b.ts"], via: "steer" },
    ]);
  });
});
