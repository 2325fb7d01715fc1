// End to end through two real processes: `spark exec` whose model is a Responses WebSocket
// upstream (`transport = "websocket"`), and `spark serve` (a scripted model) as that upstream.
// The agent's second step, after its tool call, reaches serve over the same socket as
// `previous_response_id` plus the tool output alone, and serve's model still sees the whole
// conversation, rebuilt from the chain.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { createAgentWorkspace, type AgentWorkspace } from "../agent/support/agent-workspace.ts";
import { spark } from "../agent/support/spark-exec.ts";
import { WsRecordingProxy } from "./ws-recording-proxy.ts";

const SPARK = fileURLToPath(new URL("../../bin/spark.js", import.meta.url));

let workspace: AgentWorkspace;
let serve: ChildProcess | undefined;
let proxy: WsRecordingProxy | undefined;
afterEach(async () => {
  serve?.kill("SIGKILL");
  serve = undefined;
  await proxy?.close();
  proxy = undefined;
  workspace.remove();
});

/** `spark serve` on port 0 with its own SPARK_HOME; resolves with its URL once it listens. */
function startServe(home: string, model: string): Promise<string> {
  const child = spawn(process.execPath, [SPARK, "serve", "--port", "0", "--model", model], {
    cwd: home,
    env: { ...process.env, SPARK_HOME: home },
    stdio: ["ignore", "ignore", "pipe"],
  });
  serve = child;
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`spark serve exited (${code}): ${stderr}`)));
  });
}

it(
  "spark exec drives spark serve over one Responses WebSocket, sending only each step's new input",
  { timeout: 60_000 },
  async () => {
    workspace = createAgentWorkspace();
    workspace.write("notes.txt", "hello from notes\n");
    const serveHome = path.join(path.dirname(workspace.root), "serve-home");
    mkdirSync(serveHome, { recursive: true });
    writeFileSync(
      path.join(serveHome, "upstream.jsonl"),
      [
        { toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
        {
          text: "The notes say hello.",
          expect: { lastMessageIncludes: "hello from notes", anyMessageIncludes: "Read notes.txt" },
        },
      ]
        .map((turn) => JSON.stringify(turn))
        .join("\n"),
    );
    const serveUrl = await startServe(
      serveHome,
      `script:${path.join(serveHome, "upstream.jsonl")}`,
    );
    const listed = (await (await fetch(`${serveUrl}/v1/models`)).json()) as {
      data: Array<{ id: string }>;
    };
    proxy = await WsRecordingProxy.start(serveUrl);

    const home = path.dirname(workspace.sessionsDirectory);
    mkdirSync(home, { recursive: true });
    writeFileSync(
      path.join(home, "config.toml"),
      `default_model = "remote"
[models.remote]
engine = "openai-compatible"
base_url = "${proxy.url}/v1"
model = "${listed.data[0]?.id ?? "missing"}"
api = "responses"
transport = "websocket"
`,
    );
    const run = await spark(workspace, ["exec", "--json", "Read notes.txt"]);
    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    const text = run.events
      .map((event) => (event.type === "text-delta" ? event.text : ""))
      .join("");
    expect(text).toBe("The notes say hello.");

    expect(proxy.connections).toBe(1);
    const [first, second] = proxy.creates();
    expect(first).not.toHaveProperty("previous_response_id");
    expect(first?.input).toEqual([
      { role: "user", content: expect.stringContaining("Read notes.txt") as string },
    ]);
    expect(second?.previous_response_id).toEqual(expect.stringMatching(/^resp_/));
    expect(second?.input).toEqual([
      {
        type: "function_call_output",
        call_id: expect.any(String) as string,
        output: expect.stringContaining("hello from notes") as string,
      },
    ]);
  },
);
