// Without a valid key no path is told apart from another (issue 32, finding 8): over `spark serve`'s
// real wiring with two keys, a WebSocket upgrade or an HTTP request to an unknown path answers 401
// like a known one, and 404 only with a key. Also: a key's /v1/agent socket outlives the handshake
// timeout that closes silent ones.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, type RunningServe } from "../../src/cli/start-serve.ts";
import { AgentProtocolClient, webSocketTransport } from "../../src/protocol/agent/index.ts";
import {
  createScriptedWorkspace,
  type ScriptedWorkspace,
} from "../app-server/support/app-server-harness.ts";
import { openSocket } from "../app-server/support/serve-harness.ts";

const KEY_A = "sk-oracle-a";
const KEY_B = "sk-oracle-b";

/** Upgrade targets: unknown ones, and the two endpoints, each refused alike without a key. */
const UPGRADE_TARGETS = [
  "/v1/nonexistent",
  "/v1/agent/nonexistent",
  "/v1/responses/nonexistent",
  "/nonexistent",
  "/v1/models",
  "/v1/responses",
  "/v1/agent",
];

let workspace: ScriptedWorkspace;
let serve: RunningServe;

beforeAll(async () => {
  workspace = createScriptedWorkspace();
  serve = await startServe({
    context: await workspace.context(),
    workspaceRoots: [workspace.root],
    defaultModel: workspace.script("quiet", [{ text: "ok" }]),
    serve: { host: "127.0.0.1", port: 0, apiKeys: [KEY_A, KEY_B], handshakeTimeoutSeconds: 1 },
  });
});
afterAll(async () => {
  await serve.close();
  workspace.remove();
});

describe("no route oracle without a key", () => {
  it("answers every WebSocket upgrade without a valid key with the same 401", async () => {
    for (const target of UPGRADE_TARGETS) {
      for (const headers of [{}, { authorization: "Bearer wrong" }] as Record<string, string>[]) {
        const refused = await upgrade(serve.url, target, headers);
        expect(refused.status, `${target} ${JSON.stringify(headers)}`).toBe(401);
        expect(refused.body, target).toContain("invalid_api_key");
      }
    }
  });

  it("answers an unknown upgrade path with a key as 404", async () => {
    for (const target of ["/v1/nonexistent", "/v1/agent/nonexistent", "/nonexistent"]) {
      const refused = await upgrade(serve.url, target, { authorization: `Bearer ${KEY_B}` });
      expect(refused.status, target).toBe(404);
      expect(refused.body, target).toContain("not_found");
    }
  });

  it("answers HTTP requests to unknown paths without a key with 401, with one 404", async () => {
    for (const method of ["GET", "POST", "DELETE"]) {
      const anonymous = await fetch(`${serve.url}/v1/nonexistent`, { method });
      expect(anonymous.status, method).toBe(401);
      const keyed = await fetch(`${serve.url}/v1/nonexistent`, {
        method,
        headers: { authorization: `Bearer ${KEY_A}` },
      });
      expect(keyed.status, method).toBe(404);
    }
  });

  it("keeps a key's /v1/agent socket past the handshake timeout that closes a silent one", async () => {
    const { hostname, port } = new URL(serve.url);
    const silent = connect(Number(port), hostname);
    silent.on("error", () => undefined);
    const silentClosed = new Promise<void>((resolve) => silent.once("close", () => resolve()));
    const agentUrl = `${serve.url.replace(/^http/, "ws")}/v1/agent`;
    const socket = await openSocket(agentUrl, {
      headers: { authorization: `Bearer ${KEY_B}` },
    });
    const client = new AgentProtocolClient(webSocketTransport(socket));
    try {
      await silentClosed;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await client.request("session/list", {})).toHaveProperty("sessions");
    } finally {
      client.close();
    }
  });
});

/** Sends a WebSocket handshake to `target` and returns how it was refused (status 101: accepted). */
function upgrade(
  url: string,
  target: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: hostname,
      port: Number(port),
      path: target,
      headers: {
        ...headers,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    request.once("response", (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.once("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.once("upgrade", (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 101, body: "" });
    });
    request.once("error", reject);
    request.end();
  });
}
