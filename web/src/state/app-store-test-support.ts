// A scripted agent-protocol peer for the store's tests: answers each method from a table,
// records the requests, and emits session events; plus the store wired to it.
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

export const session = (sessionId: string, status = "idle") => ({
  sessionId,
  cwd: "/work",
  live: true,
  status,
  model: "script",
});

/** A peer that answers every method with `answers[method]` and records the requests. */
export class FakeServer {
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

export function memoryStorage(): StorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

export const settle = async (): Promise<void> => {
  for (let round = 0; round < 20; round += 1)
    await new Promise((resolve) => setTimeout(resolve, 0));
};

export function createStore(
  server: FakeServer,
  storage: StorageLike,
  frames: (() => void)[] = [],
  now?: () => number,
) {
  let route: string | undefined;
  const store = new AppStore({
    openTransport: server.open,
    storage,
    scheduleFrame: (callback) => frames.push(callback),
    ...(now === undefined ? {} : { now }),
    route: { read: () => route, write: (id) => void (route = id) },
    setTimer: (callback) => setTimeout(callback, 0),
  });
  return store;
}

export const textDelta = (text: string): SessionEvent => ({
  type: "text-delta",
  turnId: "t1",
  text,
});
