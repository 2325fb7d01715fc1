// Connects the "Ask Spark" view to `spark serve`'s agent protocol at /v1/agent with the shared
// AgentProtocolClient; the key travels as a `spark-key.<key>` subprotocol, which any WebSocket
// implementation can send (Node's global WebSocket cannot set an Authorization header). A refused
// key, no server and a server that never completes the handshake are three different errors.
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
  /** `ws` passes an ErrorEvent whose message names the HTTP status of a refused handshake. */
  addEventListener(type: "open" | "error", listener: (event?: unknown) => void): void;
};

/** A local server completes the handshake in milliseconds; this long means it will not. */
export const AGENT_CONNECT_TIMEOUT_MS = 8_000;

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
  options: { timeoutMs?: number } = {},
): Promise<AgentProtocolClient> {
  const url = agentUrl(server.baseUrl);
  const socket = new WebSocketImplementation(url, agentSubprotocols(server.apiKey));
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const timeoutMs = options.timeoutMs ?? AGENT_CONNECT_TIMEOUT_MS;
    const timer = setTimeout(() => {
      settle(() =>
        reject(
          new SparkClientError(
            "timeout",
            `${server.baseUrl} did not answer within ${Math.round(timeoutMs / 1000)} s (connecting to ${url}).`,
          ),
        ),
      );
      socket.close();
    }, timeoutMs);
    socket.addEventListener("open", () =>
      settle(() => resolve(new AgentProtocolClient(webSocketTransport(socket)))),
    );
    const fail = (event?: unknown): void =>
      settle(() => reject(handshakeError(server.baseUrl, url, event)));
    socket.addEventListener("error", fail);
    socket.addEventListener("close", () => fail());
  });
}

function handshakeError(baseUrl: string, url: string, event: unknown): SparkClientError {
  const status = /\b(\d{3})\b/.exec(errorMessageOf(event))?.[1];
  if (status === "401" || status === "403")
    return new SparkClientError(
      "unauthorized",
      `${baseUrl} refused the API key (${status}). Set it with "Spark: Set API Key".`,
      { status: Number(status) },
    );
  if (status !== undefined)
    return new SparkClientError("http_error", `${url} answered HTTP ${status}.`, {
      status: Number(status),
    });
  return new SparkClientError(
    "server_unreachable",
    `No Spark server answers at ${baseUrl}. Start one with "Spark: Start spark serve".`,
  );
}

function errorMessageOf(event: unknown): string {
  if (typeof event !== "object" || event === null) return "";
  const record = event as { message?: unknown; error?: { message?: unknown } };
  if (typeof record.message === "string") return record.message;
  return typeof record.error?.message === "string" ? record.error.message : "";
}
