// The WebSocket handshake for /v1/agent: the gateway's API keys (as a bearer header, or for
// browsers a `spark-key.<key>` subprotocol entry) and a strict Origin check, then the connection is
// handed to the app server. Refusals are plain HTTP answers (401, 403) with a JSON error body.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import {
  authenticateUpgrade,
  isHostHeaderAllowed,
  isLoopbackHost,
  KEY_SUBPROTOCOL_PREFIX,
} from "../gateway/access/auth.ts";
import { tenantOf } from "../gateway/access/tenant.ts";
import { webSocketTransport } from "../protocol/agent/message-transport.ts";
import type { AppServer } from "./app-server.ts";

/** The subprotocol a browser offers (with `spark-key.<key>`); the server selects it. */
export const AGENT_SUBPROTOCOL = "spark-agent";

export interface AgentUpgradeOptions {
  appServer: AppServer;
  apiKeys: readonly string[];
  /** Exact origins (scheme://host:port) whose pages may connect; `*` is not honoured here. */
  allowedOrigins: readonly string[];
  /** Host names, besides loopback ones, under which the server's own pages may connect. */
  allowedHosts?: readonly string[];
  /** The address the server is bound to: on loopback, only loopback and allowed Host names are
   * answered (the gateway's DNS-rebinding rule). */
  bindHost?: string;
  /** Frames beyond this close the connection (1009); smaller ones reach the dispatcher. */
  maxPayloadBytes?: number;
}

export interface AgentUpgrade {
  handleUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Terminates the agent WebSockets still open. */
  close: () => void;
}

type Refusal = { status: 401 | 403; code: string; message: string };

export function createAgentUpgrade(options: AgentUpgradeOptions): AgentUpgrade {
  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayloadBytes ?? 16 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has(AGENT_SUBPROTOCOL) ? AGENT_SUBPROTOCOL : false),
  });
  return {
    handleUpgrade(request, socket, head) {
      const refusal = checkAgentUpgrade(request.headers, options);
      if (refusal !== undefined) return refuse(socket, refusal);
      const tenant = upgradeTenant(request.headers, options.apiKeys);
      // Checked above; never the local user's tenant for a key that did not authenticate.
      if (tenant === undefined)
        return refuse(socket, { status: 401, code: "invalid_api_key", message: "No valid key." });
      webSockets.handleUpgrade(request, socket, head, (webSocket: WebSocket) => {
        // ws closes the socket itself on a protocol error (1009 for an oversized frame); without a
        // listener the error would be thrown and take the whole server down.
        webSocket.on("error", () => undefined);
        options.appServer.connect(webSocketTransport(webSocket), tenant);
      });
    },
    close() {
      for (const client of webSockets.clients) client.terminate();
    },
  };
}

/** Undefined when the handshake may proceed; otherwise why not. */
export function checkAgentUpgrade(
  headers: IncomingHttpHeaders,
  options: Pick<AgentUpgradeOptions, "apiKeys" | "allowedOrigins" | "allowedHosts" | "bindHost">,
): Refusal | undefined {
  if (
    options.bindHost !== undefined &&
    !isHostHeaderAllowed(headers.host, {
      host: options.bindHost,
      allowedHosts: options.allowedHosts ?? [],
      allowedOrigins: options.allowedOrigins,
    })
  ) {
    return {
      status: 403,
      code: "host_not_allowed",
      message: `This server does not answer to Host '${headers.host ?? ""}'; connect through localhost or 127.0.0.1, or add the name to [serve] allowed_hosts.`,
    };
  }
  const origin = headers.origin;
  if (origin !== undefined && !isAgentOriginAllowed(origin, headers.host, options)) {
    return {
      status: 403,
      code: "origin_not_allowed",
      message:
        `Origin ${origin} may not use the agent endpoint: only the server's own pages (on a ` +
        "loopback host) and origins listed in [serve] allowed_origins may.",
    };
  }
  const auth = authenticateUpgrade(headers, options.apiKeys);
  if (!auth.ok) {
    return {
      status: 401,
      code: "invalid_api_key",
      message: `${auth.error.message} Browsers may offer the subprotocols "${AGENT_SUBPROTOCOL}" and "${KEY_SUBPROTOCOL_PREFIX}<key>" instead.`,
    };
  }
  return undefined;
}

/**
 * A page may connect when its origin is listed, or is the server's own origin: the same
 * scheme-less host:port as the request's Host, and only when that host is a loopback name or an
 * explicitly allowed one. Matching Host alone is not enough: a DNS-rebinding page at
 * http://evil.example:7777 sends Host evil.example:7777 too.
 */
export function isAgentOriginAllowed(
  origin: string,
  host: string | undefined,
  options: Pick<AgentUpgradeOptions, "allowedOrigins" | "allowedHosts">,
): boolean {
  if (options.allowedOrigins.includes(origin)) return true;
  if (host === undefined) return false;
  let originUrl: URL;
  let hostUrl: URL;
  try {
    originUrl = new URL(origin);
    hostUrl = new URL(`http://${host}`);
  } catch {
    return false;
  }
  if (originUrl.protocol !== "http:" && originUrl.protocol !== "https:") return false;
  if (originUrl.host !== hostUrl.host) return false;
  const hostname = hostUrl.hostname;
  return (
    isLoopbackName(hostname) ||
    (options.allowedHosts ?? []).some((allowed) => allowed.toLowerCase() === hostname)
  );
}

function isLoopbackName(hostname: string): boolean {
  return hostname === "localhost" || isLoopbackHost(hostname);
}

/** The tenant of the key an accepted handshake presented (no keys configured: the local one). */
function upgradeTenant(
  headers: IncomingHttpHeaders,
  apiKeys: readonly string[],
): string | undefined {
  const auth = authenticateUpgrade(headers, apiKeys);
  return auth.ok ? tenantOf(auth.apiKey) : undefined;
}

function refuse(socket: Duplex, refusal: Refusal): void {
  const body = JSON.stringify({ error: { code: refusal.code, message: refusal.message } });
  socket.on("error", () => {});
  socket.end(
    `HTTP/1.1 ${refusal.status} ${refusal.status === 401 ? "Unauthorized" : "Forbidden"}\r\n` +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}
