// A scripted agent-protocol server end for client tests (terminal UI components, hooks, slash
// commands): answers requests from per-method handlers, records them, and emits session events
// with sequence numbers, all through a real in-memory transport pair and the real client.
import { AgentProtocolClient } from "../../src/protocol/agent/agent-protocol-client.ts";
import type {
  AgentMethodName,
  AgentMethodParams,
  AgentMethodResult,
} from "../../src/protocol/agent/agent-methods.ts";
import { AgentProtocolError } from "../../src/protocol/agent/json-rpc.ts";
import { createInMemoryTransportPair } from "../../src/protocol/agent/message-transport.ts";
import type { SessionEvent } from "../../src/protocol/agent/session-events.ts";

export type FakeHandlers = {
  [Method in AgentMethodName]?: (
    params: AgentMethodParams<Method>,
  ) => AgentMethodResult<Method> | Promise<AgentMethodResult<Method>>;
};

export interface FakeAgentServer {
  client: AgentProtocolClient;
  /** Every request received, in order. */
  requests: Array<{ method: string; params: unknown }>;
  /** Sends a session event with the session's next sequence number. */
  emit(sessionId: string, event: SessionEvent): void;
  /** Resolves once the request has been received (after the client's microtask hop). */
  waitForRequest(method: string): Promise<{ method: string; params: unknown }>;
}

const defaultHandlers: FakeHandlers = {
  "session/attach": ({ sessionId }) => ({
    session: { sessionId, cwd: "/repo", live: true, status: "idle", model: "script" },
    replayedEvents: 0,
  }),
  "session/detach": () => ({ detached: true }),
  "turn/start": () => ({ started: true }),
  "turn/steer": () => ({ delivery: "steered" }),
  "turn/queue": () => ({ delivery: "queued" }),
  "turn/interrupt": () => ({ interrupted: true }),
  "approval/respond": () => ({ resolved: true }),
};

export function createFakeAgentServer(handlers: FakeHandlers = {}): FakeAgentServer {
  const [clientEnd, serverEnd] = createInMemoryTransportPair();
  const all = { ...defaultHandlers, ...handlers } as Record<
    string,
    ((params: unknown) => unknown) | undefined
  >;
  const requests: Array<{ method: string; params: unknown }> = [];
  const waiters: Array<{
    method: string;
    resolve: (request: { method: string; params: unknown }) => void;
  }> = [];
  const sequences = new Map<string, number>();
  serverEnd.onMessage((text) => {
    const message = JSON.parse(text) as { id: number; method: string; params: unknown };
    const request = { method: message.method, params: message.params };
    requests.push(request);
    for (const waiter of waiters.filter((candidate) => candidate.method === message.method)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(request);
    }
    const handler = all[message.method];
    const reply = async (): Promise<void> => {
      try {
        if (handler === undefined)
          throw new AgentProtocolError("method_not_found", `No method ${message.method}.`);
        const result = await handler(message.params);
        serverEnd.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      } catch (error) {
        const protocolError =
          error instanceof AgentProtocolError
            ? error
            : new AgentProtocolError("agent_error", (error as Error).message);
        serverEnd.send(
          JSON.stringify({ jsonrpc: "2.0", id: message.id, error: protocolError.toErrorObject() }),
        );
      }
    };
    void reply();
  });
  return {
    client: new AgentProtocolClient(clientEnd),
    requests,
    emit(sessionId, event) {
      const sequence = (sequences.get(sessionId) ?? 0) + 1;
      sequences.set(sessionId, sequence);
      serverEnd.send(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "session/event",
          params: { sessionId, sequence, event },
        }),
      );
    },
    waitForRequest(method) {
      const seen = requests.find((request) => request.method === method);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ method, resolve }));
    },
  };
}
