// The agent through a real `spark serve` gateway (over the scripted engine): WebSocket turns that
// chain with previous_response_id, steering across the wire, and the HTTP/SSE fallback when no
// WebSocket opens in time.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AgentSession } from "../../src/agent/agent-session.ts";
import type { AgentEvent } from "../../src/agent/agent-events.ts";
import { GatewayModelClient } from "../../src/agent/model-client/gateway-model-client.ts";
import { createScriptEngine } from "../../src/engines/script/script-engine.ts";
import type { ScriptTurnInput } from "../../src/engines/script/script-turn.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";
import {
  createAgentWorkspace,
  eventsOfType,
  type AgentWorkspace,
} from "./support/agent-workspace.ts";

let workspace: AgentWorkspace;
let harness: GatewayHarness | undefined;
let blackhole: Server | undefined;
afterEach(async () => {
  await harness?.close();
  blackhole?.closeAllConnections();
  blackhole?.close();
  workspace.remove();
});

async function sessionOverGateway(
  turns: ScriptTurnInput[],
  client: (url: string) => GatewayModelClient,
) {
  workspace = createAgentWorkspace();
  harness = await startGatewayHarness(await createScriptEngine({ turns }));
  const modelClient = client(harness.url);
  const session = await AgentSession.create({
    client: modelClient,
    workspaceRoot: workspace.root,
    sessionsDirectory: workspace.sessionsDirectory,
    instructions: "You are Spark, in a test.",
  });
  const events: AgentEvent[] = [];
  session.subscribe((event) => events.push(event));
  return { session, modelClient, events };
}

describe("GatewayModelClient", () => {
  it("runs tool turns over one WebSocket, sending only new input after the first", async () => {
    const { session, modelClient, events } = await sessionOverGateway(
      [
        { text: "Reading.", toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
        {
          text: "It says alpha.",
          expect: { lastMessageRole: "tool", lastMessageIncludes: "1\talpha" },
        },
        {
          text: "Still alpha.",
          expect: { anyMessageIncludes: "It says alpha.", lastMessageIncludes: "Again?" },
        },
      ],
      (url) => new GatewayModelClient({ url }),
    );
    workspace.write("a.txt", "alpha\n");
    expect((await session.submit("What is in a.txt?")).reason).toBe("completed");
    expect((await session.submit("Again?")).reason).toBe("completed");
    expect(modelClient.kind).toBe("gateway-ws");
    expect(modelClient.stats).toEqual({ responses: 3, chained: 2 });
    expect(eventsOfType(events, "tool-result")[0]?.output).toBe("1\talpha");
    const finished = eventsOfType(events, "turn-finished")[0];
    expect(finished?.usage.inputTokens).toBeGreaterThan(0);
    await session.close();
    await modelClient.close();
  });

  it("steers mid-stream across the wire", async () => {
    const slow = Array.from({ length: 80 }, (_, index) => `w${index}`).join(" ");
    const { session, modelClient, events } = await sessionOverGateway(
      [
        { text: slow, delayMs: 10 },
        { text: "Steered.", expect: { lastMessageIncludes: "shorter" } },
      ],
      (url) => new GatewayModelClient({ url }),
    );
    let deltas = 0;
    session.subscribe((event) => {
      if (event.type === "text-delta" && ++deltas === 3) void session.steer("shorter");
    });
    const steered = await session.submit("Go on.");
    expect(steered.error?.message).toBeUndefined();
    expect(steered.reason).toBe("completed");
    expect(eventsOfType(events, "interrupted")[0]?.reason).toBe("steer");
    expect(session.transcript.at(-1)).toEqual({ role: "assistant", content: "Steered." });
    await session.close();
    await modelClient.close();
  });

  it("falls back to HTTP/SSE when the WebSocket does not open in time", async () => {
    // A server that accepts the upgrade request and never answers it.
    blackhole = createServer();
    blackhole.on("upgrade", () => {});
    await new Promise<void>((resolve) => blackhole?.listen(0, "127.0.0.1", resolve));
    const wsPort = (blackhole.address() as AddressInfo).port;
    let httpUrl = "";
    const { session, modelClient } = await sessionOverGateway([{ text: "Over HTTP." }], (url) => {
      httpUrl = url;
      return new GatewayModelClient({ url: `ws://127.0.0.1:${wsPort}`, connectTimeoutMs: 300 });
    });
    // Point the HTTP fallback at the real gateway: the blackhole only answers upgrades.
    blackhole.on("request", (request, response) => {
      const target = new URL(request.url ?? "/", httpUrl.replace(/^ws/, "http"));
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        void fetch(target, {
          method: request.method ?? "POST",
          headers: { "content-type": "application/json" },
          body: Buffer.concat(chunks),
        }).then(async (upstream) => {
          response.writeHead(upstream.status, {
            "content-type": upstream.headers.get("content-type") ?? "text/plain",
          });
          response.end(Buffer.from(await upstream.arrayBuffer()));
        });
      });
    });
    const result = await session.submit("Hello?");
    expect(result).toMatchObject({ reason: "completed", text: "Over HTTP." });
    expect(modelClient.kind).toBe("gateway-http");
    await session.close();
    await modelClient.close();
  });
});
