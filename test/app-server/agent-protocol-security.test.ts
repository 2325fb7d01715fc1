// Who may reach /v1/agent and where its sessions may work, against `spark serve`'s wiring: the API
// key (header or browser subprotocol), the Origin rule (DNS rebinding included), workspace roots.
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AgentProtocolClient, webSocketTransport } from "../../src/protocol/agent/index.ts";
import { createScriptedWorkspace, type ScriptedWorkspace } from "./support/app-server-harness.ts";
import {
  openSocket,
  refusedHandshake,
  startServeHarness,
  TEST_API_KEY,
  type ServeHarness,
} from "./support/serve-harness.ts";

let workspace: ScriptedWorkspace;
let harness: ServeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

async function start(): Promise<ServeHarness> {
  workspace = createScriptedWorkspace();
  harness = await startServeHarness(workspace, workspace.script("quiet", [{ text: "ok" }]));
  return harness;
}

const bearer = { authorization: `Bearer ${TEST_API_KEY}` };

describe("agent endpoint security", () => {
  it("refuses a missing or wrong key with 401 and says how to send one", async () => {
    const { agentUrl } = await start();
    const missing = await refusedHandshake(agentUrl);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe("invalid_api_key");
    expect(missing.body.error.message).toContain("Authorization: Bearer");
    const wrong = await refusedHandshake(agentUrl, { headers: { authorization: "Bearer nope" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toContain("not valid");
  });

  it("refuses a foreign Origin with 403 even with a valid key", async () => {
    const { agentUrl } = await start();
    const refused = await refusedHandshake(agentUrl, {
      headers: bearer,
      origin: "https://evil.example",
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("origin_not_allowed");
    expect(refused.body.error.message).toContain("https://evil.example");
  });

  it("refuses a DNS-rebinding pair: Host and Origin agree on a name that is not loopback", async () => {
    const { agentUrl } = await start();
    const port = new URL(agentUrl).port;
    const refused = await refusedHandshake(agentUrl, {
      headers: { ...bearer, host: `rebind.example:${port}` },
      origin: `http://rebind.example:${port}`,
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("origin_not_allowed");
    // The same pair on a loopback name is the server's own page: the Host header really is sent.
    const own = await openSocket(agentUrl, {
      headers: { ...bearer, host: `localhost:${port}` },
      origin: `http://localhost:${port}`,
    });
    own.close();
  });

  it("accepts the server's own loopback origin with the key as a browser subprotocol", async () => {
    const { agentUrl } = await start();
    const origin = `http://${new URL(agentUrl).host}`;
    const socket = await openSocket(agentUrl, {
      origin,
      protocols: ["spark-agent", `spark-key.${TEST_API_KEY}`],
    });
    expect(socket.protocol).toBe("spark-agent");
    const client = new AgentProtocolClient(webSocketTransport(socket));
    const { sessions } = await client.request("session/list", {});
    expect(sessions).toEqual([]);
    client.close();
    const wrongPort = await refusedHandshake(agentUrl, {
      origin: "http://127.0.0.1:1",
      protocols: ["spark-agent", `spark-key.${TEST_API_KEY}`],
    });
    expect(wrongPort.status).toBe(403);
    const wrongKey = await refusedHandshake(agentUrl, {
      origin,
      protocols: ["spark-agent", "spark-key.wrong"],
    });
    expect(wrongKey.status).toBe(401);
  });

  it("starts sessions only inside the workspace roots; a symlink out is refused", async () => {
    const served = await start();
    const client = await served.connect();
    const outside = path.join(workspace.sparkHome, "outside");
    mkdirSync(outside);
    await expect(client.request("session/start", { cwd: outside })).rejects.toMatchObject({
      code: "permission_denied",
      message: expect.stringContaining("outside the server's workspace roots") as unknown,
    });
    symlinkSync(outside, path.join(workspace.root, "escape"));
    await expect(
      client.request("session/start", { cwd: path.join(workspace.root, "escape") }),
    ).rejects.toMatchObject({ code: "permission_denied" });
    await expect(
      client.request("session/start", { cwd: path.join(workspace.root, "missing") }),
    ).rejects.toMatchObject({ code: "invalid_params" });
    mkdirSync(path.join(workspace.root, "packages", "app"), { recursive: true });
    const { session } = await client.request("session/start", { cwd: "packages/app" });
    expect(session.cwd).toBe(path.join(workspace.root, "packages", "app"));
  });

  it("lists workspace files with .gitignore respected, fuzzy-filtered and capped", async () => {
    const served = await start();
    workspace.write(".gitignore", "dist/\n*.log\n");
    workspace.write("src/agent/agent-session.ts", "");
    workspace.write("src/app-server/live-session.ts", "");
    workspace.write("dist/bundle.js", "");
    workspace.write("debug.log", "");
    workspace.write("README.md", "");
    const client = await served.connect();
    const { session } = await client.request("session/start", {});
    const all = await client.request("workspace/files", { sessionId: session.sessionId });
    expect(all.files.sort()).toEqual([
      ".gitignore",
      "README.md",
      "src/agent/agent-session.ts",
      "src/app-server/live-session.ts",
    ]);
    const fuzzy = await client.request("workspace/files", {
      sessionId: session.sessionId,
      query: "livses",
    });
    expect(fuzzy.files).toEqual(["src/app-server/live-session.ts"]);
    const capped = await client.request("workspace/files", {
      sessionId: session.sessionId,
      limit: 2,
    });
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.files).toHaveLength(2);
  });
});
