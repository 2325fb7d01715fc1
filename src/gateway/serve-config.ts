// The serving tier's settings (the config file's [serve] section, camelCased) and their defaults:
// the one place they are defined (the config file's schema takes its defaults from here).
import { REPEAT_INTERVAL_MS } from "./repeated-warnings.ts";

export interface ServeConfig {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Bearer keys; empty means no authentication, which is allowed on loopback only. */
  apiKeys: string[];
  /** Browser origins allowed to call the server ("*" allows any); the server's own origin always is. */
  allowedOrigins: string[];
  /**
   * Host names (or name:port) requests may name besides loopback ones when bound to loopback, or
   * the only ones allowed when bound elsewhere and set ("*" allows any): the DNS-rebinding guard.
   */
  allowedHosts: string[];
  /** Responses generating at once per API key (or for anonymous clients together). */
  maxConcurrencyPerKey: number;
  /** Connections that presented a valid key (HTTP keep-alive and WebSocket) open at once; more
   * are answered 503. Connections without a key yet count in the pending pool instead. */
  maxConnections: number;
  /** Connections one key may hold open (with two or more api_keys; otherwise max_connections):
   * more are answered 429, so one key cannot take every connection from the others. */
  maxConnectionsPerKey: number;
  /** Connections that have not yet presented a valid key, in total and per remote address (IPv6:
   * per /64); past either the oldest such connection is closed to make room. */
  maxPendingConnections: number;
  maxPendingPerAddress: number;
  /** A connection that has not presented a valid key this long after it opened is closed (its
   * request headers, or its WebSocket upgrade, must arrive by then). */
  handshakeTimeoutSeconds: number;
  /** A WebSocket with no response in flight that sends nothing this long is closed; 0 = never. */
  idleTimeoutSeconds: number;
  /** A WebSocket is closed after this long (once its response in flight ends); 0 = unlimited. */
  connectionLifetimeSeconds: number;
  /** How long a response keeps generating after its client dropped, waiting for a resume. */
  resumeGraceSeconds: number;
  /** Largest client frame or HTTP body; larger ones get an error, not a dropped connection. */
  maxFrameBytes: number;
  /** Largest estimated input, in tokens. */
  contextLimitTokens: number;
  heartbeatIntervalMs: number;
  /** Model used when a request names none; default: the first one listed. */
  defaultModel?: string;
  /** Response store: entries, total bytes, and age before eviction. */
  responseStoreMaxEntries: number;
  responseStoreMaxBytes: number;
  responseStoreTtlSeconds: number;
  /** Per response, bytes of events kept for resume. */
  replayBufferBytes: number;
  /** Unsent bytes per connection above which text deltas are merged, and above which it is dropped. */
  sendBufferSoftBytes: number;
  sendBufferHardBytes: number;
  /** Where state that outlives a request lives: unset keeps it in this process; `redis://…` is
   * shared by every replica pointed at the same Redis. */
  store?: string;
  /** A replica that stops renewing its lease for this long is taken for dead: its slots free up
   * and its responses in flight can be continued by another replica. */
  replicaLeaseMs: number;
  /** SIGTERM: how long responses in flight may take to finish before they are handed over to
   * another replica (WebSocket, with a shared store) or ended with a retryable failure. */
  drainGraceSeconds: number;
  /** The operator log writes a repeating warning (Redis away: one per request) once per this
   * many seconds, with a count of the repeats it folded. */
  logRepeatIntervalSeconds: number;
}

export const defaultServeConfig: ServeConfig = {
  host: "127.0.0.1",
  port: 7777,
  apiKeys: [],
  allowedOrigins: [],
  allowedHosts: [],
  maxConcurrencyPerKey: 16,
  maxConnections: 1024,
  maxConnectionsPerKey: 256,
  maxPendingConnections: 256,
  maxPendingPerAddress: 16,
  handshakeTimeoutSeconds: 10,
  idleTimeoutSeconds: 600,
  connectionLifetimeSeconds: 3600,
  resumeGraceSeconds: 30,
  maxFrameBytes: 4 * 1024 * 1024,
  contextLimitTokens: 131_072,
  heartbeatIntervalMs: 30_000,
  responseStoreMaxEntries: 10_000,
  responseStoreMaxBytes: 256 * 1024 * 1024,
  responseStoreTtlSeconds: 3600,
  replayBufferBytes: 4 * 1024 * 1024,
  sendBufferSoftBytes: 256 * 1024,
  sendBufferHardBytes: 16 * 1024 * 1024,
  replicaLeaseMs: 3000,
  drainGraceSeconds: 20,
  logRepeatIntervalSeconds: REPEAT_INTERVAL_MS / 1000,
};

export function resolveServeConfig(config: Partial<ServeConfig> = {}): ServeConfig {
  const defined = Object.fromEntries(
    Object.entries(config).filter(([, value]) => value !== undefined),
  );
  return { ...defaultServeConfig, ...defined };
}
