// Test helper: the real `spark serve` wiring (startServe: gateway + app server at /v1/agent) on
// 127.0.0.1 with an API key, and agent-protocol clients over real WebSockets.
import WebSocket from "ws";
import { startServe, type RunningServe } from "../../../src/cli/start-serve.ts";
import {
  AGENT_PROTOCOL_PATH,
  AgentProtocolClient,
  webSocketTransport,
} from "../../../src/protocol/agent/index.ts";
import type { ScriptedWorkspace } from "./app-server-harness.ts";

export const TEST_API_KEY = "agent-test-key";

export interface ServeHarness {
  serve: RunningServe;
  agentUrl: string;
  /** A client authenticated with `apiKey` (default TEST_API_KEY; none: no header); closed by
   * `close`. */
  connect(apiKey?: string | null): Promise<AgentProtocolClient>;
  close(): Promise<void>;
}

export async function startServeHarness(
  workspace: ScriptedWorkspace,
  defaultModel: string,
  workspaceRoots: string[] = [workspace.root],
  apiKeys: string[] = [TEST_API_KEY],
): Promise<ServeHarness> {
  const serve = await startServe({
    context: await workspace.context(),
    workspaceRoots,
    defaultModel,
    serve: { host: "127.0.0.1", port: 0, apiKeys },
    instructions: "You are Spark, in a test.",
  });
  const agentUrl = `${serve.url.replace(/^http/, "ws")}${AGENT_PROTOCOL_PATH}`;
  const clients: AgentProtocolClient[] = [];
  return {
    serve,
    agentUrl,
    async connect(apiKey: string | null = TEST_API_KEY) {
      const socket = await openSocket(agentUrl, {
        headers: apiKey === null ? {} : { authorization: `Bearer ${apiKey}` },
      });
      const client = new AgentProtocolClient(webSocketTransport(socket));
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.close();
      await serve.close();
    },
  };
}

export function openSocket(
  url: string,
  options: WebSocket.ClientOptions & { protocols?: string[] } = {},
): Promise<WebSocket> {
  const { protocols, ...rest } = options;
  const socket = new WebSocket(url, protocols ?? [], rest);
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** The HTTP status and JSON body a refused handshake answers with. */
export function refusedHandshake(
  url: string,
  options: WebSocket.ClientOptions & { protocols?: string[] } = {},
): Promise<{ status: number; body: { error: { code: string; message: string } } }> {
  const { protocols, ...rest } = options;
  const socket = new WebSocket(url, protocols ?? [], rest);
  return new Promise((resolve, reject) => {
    socket.once("open", () => {
      socket.close();
      reject(new Error("The handshake was accepted."));
    });
    socket.once("unexpected-response", (_request, response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(text) as { error: { code: string; message: string } },
        }),
      );
    });
    socket.once("error", () => undefined);
  });
}
