// Connects the "Ask Spark" view to `spark serve`'s agent protocol at /v1/agent with the shared
// AgentProtocolClient; the key travels as a `spark-key.<key>` subprotocol, which any WebSocket
// implementation can send (Node's global WebSocket cannot set an Authorization header).
import {
  AgentProtocolClient,
  webSocketTransport,
  type WebSocketLike,
} from "../../../../src/protocol/agent/index.ts";
import { SparkClientError } from "./spark-client-error.ts";
import type { SparkServer } from "./spark-http.ts";

export type WebSocketConstructor = new (
  url: string,
  protocols?: string | string[],
) => WebSocketLike & {
  addEventListener(type: "open" | "error", listener: () => void): void;
};

export function agentUrl(baseUrl: string): string {
  const url = new URL("v1/agent", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  return url.toString();
}

export function agentSubprotocols(apiKey: string | undefined): string[] {
  return apiKey ? ["spark-agent", `spark-key.${apiKey}`] : ["spark-agent"];
}

export function connectAgent(
  server: SparkServer,
  WebSocketImplementation: WebSocketConstructor,
): Promise<AgentProtocolClient> {
  const socket = new WebSocketImplementation(
    agentUrl(server.baseUrl),
    agentSubprotocols(server.apiKey),
  );
  return new Promise((resolve, reject) => {
    let settled = false;
    socket.addEventListener("open", () => {
      settled = true;
      resolve(new AgentProtocolClient(webSocketTransport(socket)));
    });
    const fail = (): void => {
      if (settled) return;
      settled = true;
      reject(
        new SparkClientError(
          "server_unreachable",
          `No agent server answers at ${agentUrl(server.baseUrl)} (or it refused the key). Start one with \`spark serve\`.`,
        ),
      );
    };
    socket.addEventListener("error", fail);
    socket.addEventListener("close", fail);
  });
}
