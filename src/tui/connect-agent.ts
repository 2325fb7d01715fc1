// Opens the terminal UI's agent-protocol client: an app server in this process (the default) or a
// `spark serve` at --server over a WebSocket. Either way the UI only ever sees the client.
import WebSocket from "ws";
import { createLocalAppServer } from "../app-server/create-local-app-server.ts";
import type { AppServer } from "../app-server/app-server.ts";
import type { HostContext } from "../host/host-context.ts";
import { AgentProtocolClient } from "../protocol/agent/agent-protocol-client.ts";
import { AGENT_PROTOCOL_PATH } from "../protocol/agent/agent-methods.ts";
import {
  createInMemoryTransportPair,
  webSocketTransport,
} from "../protocol/agent/message-transport.ts";
import { SparkError } from "../protocol/spark-error.ts";

export interface AgentConnection {
  client: AgentProtocolClient;
  /** For the status line: "in-process" or the server's URL. */
  route: string;
  close(): Promise<void>;
}

export async function connectInProcess(options: {
  context: HostContext;
  workspaceRoot: string;
  model: string | undefined;
  allowCommands: boolean;
}): Promise<AgentConnection> {
  const appServer: AppServer = await createLocalAppServer({
    context: options.context,
    workspaceRoots: [options.workspaceRoot],
    ...(options.model === undefined ? {} : { defaultModel: options.model }),
    allowCommands: options.allowCommands,
  });
  const [clientEnd, serverEnd] = createInMemoryTransportPair();
  appServer.connect(serverEnd);
  const client = new AgentProtocolClient(clientEnd);
  return {
    client,
    route: "in-process",
    async close() {
      client.close();
      await appServer.close();
      await options.context.registry.dispose();
    },
  };
}

/** ws://host:port (or http://…) with no path means the server's agent endpoint. */
export function agentUrl(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new SparkError("invalid_request", `--server ${server} is not a URL (ws://host:port).`);
  }
  if (url.protocol === "http:") url.protocol = "ws:";
  if (url.protocol === "https:") url.protocol = "wss:";
  if (url.protocol !== "ws:" && url.protocol !== "wss:")
    throw new SparkError("invalid_request", `--server ${server} must be ws:// or wss://.`);
  if (url.pathname === "/" || url.pathname === "") url.pathname = AGENT_PROTOCOL_PATH;
  return url.toString();
}

export async function connectRemote(server: string, apiKey?: string): Promise<AgentConnection> {
  const url = agentUrl(server);
  const socket = new WebSocket(url, {
    ...(apiKey === undefined ? {} : { headers: { authorization: `Bearer ${apiKey}` } }),
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_request, response) =>
      reject(
        new SparkError(
          response.statusCode === 401 || response.statusCode === 403
            ? "authentication_failed"
            : "network_error",
          `${url} refused the connection (HTTP ${response.statusCode})${response.statusCode === 401 ? "; set SPARK_API_KEY" : ""}.`,
        ),
      ),
    );
    socket.once("error", (error) =>
      reject(
        new SparkError("network_error", `Cannot reach ${url}: ${error.message}`, { cause: error }),
      ),
    );
  });
  const client = new AgentProtocolClient(webSocketTransport(socket));
  return {
    client,
    route: url,
    async close() {
      client.close();
    },
  };
}
