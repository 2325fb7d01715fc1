import { describe, expect, it } from "vitest";
import { AgentProtocolClient } from "./agent-protocol-client.ts";
import { AgentProtocolError } from "./json-rpc.ts";
import { createInMemoryTransportPair, type MessageTransport } from "./message-transport.ts";

function connect(): { client: AgentProtocolClient; server: MessageTransport; sent: unknown[] } {
  const [clientEnd, serverEnd] = createInMemoryTransportPair();
  const sent: unknown[] = [];
  serverEnd.onMessage((text) => sent.push(JSON.parse(text)));
  return { client: new AgentProtocolClient(clientEnd), server: serverEnd, sent };
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe("AgentProtocolClient", () => {
  it("sends JSON-RPC requests and resolves validated results", async () => {
    const { client, server, sent } = connect();
    const result = client.request("turn/interrupt", { sessionId: "s1" });
    await tick();
    expect(sent).toEqual([
      { jsonrpc: "2.0", id: 1, method: "turn/interrupt", params: { sessionId: "s1" } },
    ]);
    server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { interrupted: true } }));
    await expect(result).resolves.toEqual({ interrupted: true });
  });

  it("rejects with the server's error code, and on a result that breaks the protocol", async () => {
    const { client, server } = connect();
    const failed = client.request("turn/interrupt", { sessionId: "missing" });
    const malformed = client.request("turn/interrupt", { sessionId: "s1" });
    await tick();
    server.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32001,
          message: "No session missing.",
          data: { code: "session_not_found" },
        },
      }),
    );
    server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, result: { interrupted: "yes" } }));
    await expect(failed).rejects.toMatchObject({ code: "session_not_found", rpcCode: -32001 });
    await expect(malformed).rejects.toMatchObject({ code: "protocol_error" });
  });

  it("delivers each session event once, in order, and tracks the last sequence", async () => {
    const { client, server } = connect();
    const seen: number[] = [];
    client.onSessionEvent((notification) => seen.push(notification.sequence));
    for (const sequence of [1, 2, 2, 1, 3]) {
      server.send(
        JSON.stringify({
          jsonrpc: "2.0",
          method: "session/event",
          params: {
            sessionId: "s1",
            sequence,
            event: { type: "text-delta", turnId: "t", text: "x" },
          },
        }),
      );
    }
    server.send("not json");
    await tick();
    expect(seen).toEqual([1, 2, 3]);
    expect(client.lastSequence("s1")).toBe(3);
    expect(client.lastSequence("other")).toBe(0);
  });

  it("rejects pending requests when the connection closes, and refuses new ones", async () => {
    const { client, server } = connect();
    const pending = client.request("session/list", {});
    server.close(1001, "server going away");
    await expect(pending).rejects.toBeInstanceOf(AgentProtocolError);
    await expect(client.request("session/list", {})).rejects.toMatchObject({
      code: "connection_closed",
    });
    expect(client.isClosed).toBe(true);
  });
});
