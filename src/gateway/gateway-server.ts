// `spark serve`: one node:http server for the HTTP routes and the Responses WebSocket endpoint,
// over any engines the models resolver hands it.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { isLoopbackHost } from "./access/auth.ts";
import { ConcurrencyLimiter } from "./access/concurrency-limiter.ts";
import {
  admitUpgrade,
  admittingRequests,
  createConnectionGuard,
  serverTimeoutsOf,
} from "./connection-admission.ts";
import type { ConnectionGuard } from "./access/connection-guard.ts";
import type { GatewayContext } from "./gateway-context.ts";
import { DrainState, drainingError } from "./drain-state.ts";
import { drainGateway, type DrainOutcome } from "./gateway-drain.ts";
import type { GatewayModels } from "./gateway-models.ts";
import { createHttpHandler } from "./http/http-routes.ts";
import { LiveResponseRegistry } from "./turn/live-response-registry.ts";
import { GatewayMetrics } from "./metrics.ts";
import { DocumentRequests } from "./http/fim/document-requests.ts";
import { RequestLog, type LogWriter } from "./request-log.ts";
import { requestPathOf } from "./access/request-path.ts";
import { resolveServeConfig, type ServeConfig } from "./serve-config.ts";
import type { GatewayStore } from "./store/gateway-store.ts";
import { LiveLogBatcher } from "./store/live-log-batcher.ts";
import { MemoryGatewayStore } from "./store/memory-gateway-store.ts";
import type { RedisGatewayStore } from "./store/redis-gateway-store.ts";
import { startStoreHeartbeat } from "./store/store-heartbeat.ts";
import { createTickCorker } from "./wire/tick-corker.ts";
import { describeWireError, WireError } from "./wire/wire-error.ts";
import { announceOversizedFrames } from "./ws/ws-oversize-guard.ts";
import { createUpgradeHandler, refuseUpgrade, type UpgradeHandler } from "./ws/ws-upgrade.ts";
import { WsSession } from "./ws/ws-session.ts";

export interface GatewayOptions {
  models: GatewayModels;
  config?: Partial<ServeConfig>;
  /** Where the per-request log goes (spark serve: stderr), including the engine errors clients
   * are not shown in full; none when absent. */
  log?: LogWriter;
  /** Other WebSocket endpoints on the same port, by path (the agent protocol at /v1/agent);
   * each does its own handshake checks. */
  webSocketRoutes?: Readonly<Record<string, UpgradeHandler>>;
  /** What outlives a request (stored responses, slots, logs of responses in flight); the gateway
   * closes it. Default: this process's memory, bounded by the [serve] store limits. */
  store?: GatewayStore;
}

export interface Gateway {
  readonly config: ServeConfig;
  readonly metrics: GatewayMetrics;
  readonly store: GatewayStore;
  /** Starts listening; refuses a non-loopback host without API keys. */
  listen(): Promise<{ url: string }>;
  /** Turns unready and refuses new work, lets responses in flight finish for up to `graceMs`, then
   * hands those still running over to other replicas (see gateway-drain.ts). Then call close(). */
  drain(graceMs: number): Promise<DrainOutcome>;
  /** /readyz waits for this (spark serve: once the default model is loaded). */
  setModelLoaded(loaded: boolean): void;
  /** The keys new requests are checked against (a reload): requests and WebSocket responses
   * under way finish; a connection whose key was removed starts no new response. Refuses no keys
   * on a host other than loopback, as listen() does. */
  setApiKeys(keys: readonly string[]): void;
  /** Stops responses (engines are freed), closes sockets, and stops listening. */
  close(): Promise<void>;
}

/** Frames up to this many times max_frame_bytes are read and answered with an error event, and
 * the connection goes on; beyond it the connection is closed (1009, after an error event) before
 * more is buffered. */
const HARD_FRAME_FACTOR = 4;

export function createGateway(options: GatewayOptions): Gateway {
  const config = resolveServeConfig(options.config);
  const store =
    options.store ??
    new MemoryGatewayStore({
      responses: {
        maxEntries: config.responseStoreMaxEntries,
        maxBytes: config.responseStoreMaxBytes,
        ttlMs: config.responseStoreTtlSeconds * 1000,
      },
      liveGraceMs: config.resumeGraceSeconds * 1000,
    });
  const log = new RequestLog(options.log, {
    replica: store.replicaId,
    repeatIntervalMs: config.logRepeatIntervalSeconds * 1000,
  });
  const context: GatewayContext = {
    config,
    models: options.models,
    store,
    liveLog: store.shared
      ? new LiveLogBatcher(store, (error) =>
          log.store(
            `responses in flight can no longer be resumed on another replica: ${describeWireError(error).message}`,
            "live_log",
          ),
        )
      : undefined,
    metrics: new GatewayMetrics(),
    limiter: new ConcurrencyLimiter(config.maxConcurrencyPerKey, store, (error) =>
      log.store(
        `per-key limits counted in this process only: ${describeWireError(error).message}`,
        "slots",
      ),
    ),
    liveResponses: new LiveResponseRegistry(config.resumeGraceSeconds * 1000),
    log,
    runs: new Set(),
    documents: new DocumentRequests(),
    drain: new DrainState(),
    readiness: { modelLoaded: true },
  };
  const heartbeat = store.shared ? startStoreHeartbeat(store, log) : undefined;
  if (isRedisStore(store)) {
    context.metrics.storeHealth = () => ({ reachable: store.reachable, ...store.breakerCounts });
    store.onFailure = (what) => context.metrics.countStoreFailure(what);
  }
  const registry = context.liveResponses;
  const sessions = new Set<WsSession>();
  const webSockets = new WebSocketServer({
    noServer: true,
    maxPayload: config.maxFrameBytes * HARD_FRAME_FACTOR,
  });
  let server: Server | undefined;
  let connectionGuard: ConnectionGuard | undefined;
  // Which replica a socket landed on (a load balancer spreads them): resume can go anywhere, but
  // a client or an operator may want to know.
  if (store.shared) {
    webSockets.on("headers", (headers: string[]) =>
      headers.push(`x-spark-replica: ${store.replicaId}`),
    );
  }

  return {
    config,
    metrics: context.metrics,
    store,
    async listen() {
      if (config.apiKeys.length === 0 && !isLoopbackHost(config.host)) {
        throw new WireError(
          "invalid_config",
          `Refusing to listen on ${config.host} without API keys: anyone on the network could use it. ` +
            "Set [serve] api_keys, or bind to 127.0.0.1.",
        );
      }
      // Not Node's maxConnections: it counts every TCP socket, so silent ones could lock out
      // everyone. The guard counts sockets without a key apart, and those with one per key.
      const { guard, onConnection } = createConnectionGuard(config);
      connectionGuard = guard;
      const httpServer = createServer(
        serverTimeoutsOf(config),
        admittingRequests(guard, context, createHttpHandler(context)),
      );
      httpServer.on("connection", onConnection);
      const responsesUpgrade = createUpgradeHandler(
        context,
        webSockets,
        (socket, apiKey, rawSocket) => {
          announceOversizedFrames(
            socket,
            config.maxFrameBytes,
            config.maxFrameBytes * HARD_FRAME_FACTOR,
          );
          const session = new WsSession(
            socket,
            apiKey,
            context,
            registry,
            createTickCorker(rawSocket),
          );
          sessions.add(session);
          socket.on("close", () => sessions.delete(session));
        },
      );
      httpServer.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
        const path = upgradePath(request);
        const route = path === undefined ? undefined : options.webSocketRoutes?.[path];
        if (context.drain.draining) {
          context.metrics.countError("server_shutting_down");
          refuseUpgrade(socket, drainingError());
          return;
        }
        if (admitUpgrade(guard, context, request, socket))
          (route ?? responsesUpgrade)(request, socket, head);
      });
      await new Promise<void>((resolve, reject) => {
        httpServer.once("error", reject);
        httpServer.listen(config.port, config.host, () => {
          httpServer.off("error", reject);
          resolve();
        });
      });
      server = httpServer;
      const address = httpServer.address() as AddressInfo;
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      return { url: `http://${host}:${address.port}` };
    },
    drain(graceMs) {
      return drainGateway({ context, registry, sessions }, graceMs);
    },
    setModelLoaded(loaded) {
      context.readiness.modelLoaded = loaded;
    },
    setApiKeys(keys) {
      if (keys.length === 0 && !isLoopbackHost(config.host))
        throw new WireError(
          "invalid_config",
          `[serve] api_keys is empty: refusing to serve ${config.host} without keys; keeping the old ones.`,
        );
      context.config.apiKeys = [...keys];
    },
    async close() {
      registry.stopAll();
      connectionGuard?.close();
      for (const session of sessions) session.shutdown();
      const httpServer = server;
      server = undefined;
      if (httpServer !== undefined) {
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
        for (const client of webSockets.clients) client.terminate();
      }
      // Every run was aborted above (or by its connection closing): wait until engines are free.
      await Promise.allSettled([...context.runs]);
      heartbeat?.stop();
      log.flush();
      await store.close();
    },
  };
}

/** The request's path without a trailing slash or query: what WebSocket routes are keyed by.
 * A target that is no path matches no route; the Responses handshake then refuses it. */
function upgradePath(request: IncomingMessage): string | undefined {
  return requestPathOf(request.url)?.replace(/\/+$/, "");
}

/** The Redis store, told apart by its kind: a class check would load ioredis for every server. */
function isRedisStore(store: GatewayStore): store is RedisGatewayStore {
  return store.kind === "redis";
}
