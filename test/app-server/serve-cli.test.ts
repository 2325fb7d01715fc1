// `spark serve` as a user runs it: a child process with --workspace-root and a scripted model, an
// API key from SPARK_HOME's config.toml, and an agent-protocol client over a real WebSocket.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { AgentProtocolClient, webSocketTransport } from "../../src/protocol/agent/index.ts";
import {
  createScriptedWorkspace,
  EventRecorder,
  type ScriptedWorkspace,
} from "./support/app-server-harness.ts";
import { openSocket, refusedHandshake } from "./support/serve-harness.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));

let workspace: ScriptedWorkspace;
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
  workspace.remove();
});

/** Starts `spark serve` and resolves with its agent URL once it prints where it listens. */
function startServe(
  args: string[],
  cwd: string,
): Promise<{ agentUrl: string; exited: Promise<number | null> }> {
  const process_ = spawn(process.execPath, [SPARK, "serve", "--port", "0", ...args], {
    cwd,
    env: { ...process.env, SPARK_HOME: workspace.sparkHome },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child = process_;
  const exited = new Promise<number | null>((resolve) => process_.once("exit", resolve));
  return new Promise((resolve, reject) => {
    let stderr = "";
    process_.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /Agent protocol (ws:\/\/\S+)/.exec(stderr);
      if (match?.[1] !== undefined) resolve({ agentUrl: match[1], exited });
    });
    void exited.then((code) => reject(new Error(`spark serve exited (${code}): ${stderr}`)));
  });
}

describe("spark serve /v1/agent", () => {
  it("serves agent sessions inside --workspace-root to clients with the configured key", async () => {
    workspace = createScriptedWorkspace();
    writeFileSync(
      path.join(workspace.sparkHome, "config.toml"),
      '[serve]\napi_keys = ["cli-key"]\n',
    );
    const model = workspace.script("cli", [{ text: "Served over the socket." }]);
    // Started outside the repository, so only the flag makes the repository a root.
    const { agentUrl, exited } = await startServe(
      ["--model", model, "--workspace-root", workspace.root],
      workspace.sparkHome,
    );
    expect((await refusedHandshake(agentUrl)).status).toBe(401);
    const socket = await openSocket(agentUrl, { headers: { authorization: "Bearer cli-key" } });
    const client = new AgentProtocolClient(webSocketTransport(socket));
    const recorder = new EventRecorder(client);
    await expect(
      client.request("session/start", { cwd: workspace.sparkHome }),
    ).rejects.toMatchObject({ code: "permission_denied" });
    const { session } = await client.request("session/start", { cwd: workspace.root });
    await client.request("turn/start", { sessionId: session.sessionId, text: "Hello?" });
    await recorder.turnFinished();
    expect(
      recorder
        .ofType("text-delta")
        .map((event) => event.text)
        .join(""),
    ).toBe("Served over the socket.");
    client.close();
    child?.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 60_000);
});
