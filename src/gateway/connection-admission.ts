// Where the connection guard meets node:http: the server's own timeouts, the accept hook, and the
// admission of each request or WebSocket handshake that presents a valid key (refusals name the
// limit: 429 for the key's own cap, 503 for the server's).
import type { IncomingMessage, ServerOptions, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { authenticate, authenticateUpgrade } from "./access/auth.ts";
import { ConnectionGuard, type ConnectionGuardLimits } from "./access/connection-guard.ts";
import type { GatewayContext } from "./gateway-context.ts";
import { sendError } from "./http/http-io.ts";
import { requestPathOf } from "./access/request-path.ts";
import { tenantOf } from "./access/tenant.ts";
import type { ServeConfig } from "./serve-config.ts";
import { describeWireError } from "./wire/wire-error.ts";
import { refuseUpgrade } from "./ws/ws-upgrade.ts";

/** An idle keep-alive socket is closed after this long (Node's default, stated here on purpose:
 * an admitted socket counts for its key until it closes). */
export const KEEP_ALIVE_TIMEOUT_MS = 5000;
const TCP_KEEP_ALIVE_DELAY_MS = 60_000;
/** Node's own default for a whole request (headers and body). */
const REQUEST_TIMEOUT_MS = 300_000;

export function connectionLimitsOf(config: ServeConfig): ConnectionGuardLimits {
  return {
    maxConnections: config.maxConnections,
    // With one key (or none) there is no other tenant to leave room for.
    maxConnectionsPerKey:
      config.apiKeys.length > 1 ? config.maxConnectionsPerKey : config.maxConnections,
    maxPendingConnections: config.maxPendingConnections,
    maxPendingPerAddress: config.maxPendingPerAddress,
    handshakeTimeoutMs: config.handshakeTimeoutSeconds * 1000,
  };
}

/** Node's header and request timeouts: slow headers on a keep-alive socket (already admitted, so
 * past the guard's own timer) are cut as silent new sockets are. */
export function serverTimeoutsOf(config: ServeConfig): ServerOptions {
  const handshakeTimeoutMs = config.handshakeTimeoutSeconds * 1000;
  return {
    headersTimeout: handshakeTimeoutMs,
    requestTimeout: Math.max(REQUEST_TIMEOUT_MS, handshakeTimeoutMs),
    // Node checks both timeouts on this interval (default 30 s), so it follows the timeout.
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, handshakeTimeoutMs / 2)),
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    // TCP keep-alive probes find a peer that vanished without a close (a WebSocket on /v1/agent
    // has no ping of its own), so its slot does not stay held for ever.
    keepAlive: true,
    keepAliveInitialDelay: TCP_KEEP_ALIVE_DELAY_MS,
  };
}

export function createConnectionGuard(config: ServeConfig): {
  guard: ConnectionGuard;
  onConnection: (socket: Socket) => void;
} {
  const guard = new ConnectionGuard(connectionLimitsOf(config));
  return { guard, onConnection: (socket) => guard.accept(socket, socket.remoteAddress) };
}

/**
 * Wraps the HTTP routes: a request with a valid key admits its socket for that key (or is refused
 * with the limit it hit); one without stays pending and goes on to the routes, which answer 401 or
 * a public page.
 */
export function admittingRequests(
  guard: ConnectionGuard,
  context: GatewayContext,
  routes: (request: IncomingMessage, response: ServerResponse) => void,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const socket = request.socket;
    const auth = authenticate(request.headers, context.config.apiKeys);
    const refused = auth.ok ? guard.admit(socket, auth.apiKey) : undefined;
    if (refused !== undefined) {
      const startedAt = performance.now();
      context.metrics.countError(describeWireError(refused).code);
      response.once("close", () =>
        context.log.http(
          request.method ?? "GET",
          requestPathOf(request.url) ?? "(not a path)",
          response.statusCode,
          performance.now() - startedAt,
          refused,
          auth.ok ? tenantOf(auth.apiKey) : undefined,
        ),
      );
      // The socket is not kept: it would go on counting for a key that is over its limit.
      response.shouldKeepAlive = false;
      sendError(response, refused);
      return;
    }
    guard.requestStarted(socket);
    response.once("close", () => guard.requestEnded(socket));
    routes(request, response);
  };
}

/** Admits a handshake that presents a valid key; false when it was refused (and answered). */
export function admitUpgrade(
  guard: ConnectionGuard,
  context: GatewayContext,
  request: IncomingMessage,
  socket: Duplex,
): boolean {
  const auth = authenticateUpgrade(request.headers, context.config.apiKeys);
  // Without a valid key the endpoint answers (401, the same for every path) and closes it.
  if (!auth.ok) return true;
  const refused = guard.admit(socket, auth.apiKey);
  if (refused === undefined) return true;
  context.metrics.countError(describeWireError(refused).code);
  refuseUpgrade(socket, refused);
  return false;
}
