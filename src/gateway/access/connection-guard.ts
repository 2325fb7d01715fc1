// Who may hold the server's sockets. A connection that has not presented a valid key is pending:
// it counts in a small pool of its own (per remote address and in total, the oldest closed first
// when full) and is closed after the handshake timeout. One that has counts for its key
// (max_connections_per_key) and toward max_connections, so neither silent sockets nor one key's
// sockets can lock the others out.
import type { Duplex } from "node:stream";
import { isIP } from "node:net";
import { tenantOf } from "./tenant.ts";
import { WireError } from "../wire/wire-error.ts";

export interface ConnectionGuardLimits {
  /** Connections admitted (with a valid key, or any when no keys are configured) at once. */
  maxConnections: number;
  maxConnectionsPerKey: number;
  maxPendingConnections: number;
  maxPendingPerAddress: number;
  handshakeTimeoutMs: number;
}

interface TrackedConnection {
  readonly socket: Duplex;
  readonly addressBucket: string;
  /** The tenant it counts for once admitted; undefined while pending. */
  owner: string | undefined;
  timer: NodeJS.Timeout | undefined;
  requestsInFlight: number;
  /** The handshake timeout passed while a (public) request was being answered: close after it. */
  closeWhenIdle: boolean;
}

/** How long a refused client should wait before trying again. */
const RETRY_AFTER_MS = 1000;

export class ConnectionGuard {
  private readonly connections = new Map<Duplex, TrackedConnection>();
  /** Pending connections in the order they opened (a Map iterates in insertion order). */
  private readonly pending = new Map<Duplex, TrackedConnection>();
  private readonly pendingByAddress = new Map<string, Set<TrackedConnection>>();
  private readonly admittedByOwner = new Map<string, number>();
  private admitted = 0;

  constructor(private readonly limits: ConnectionGuardLimits) {}

  /** A socket the server just accepted: pending until admit() names its key. */
  accept(socket: Duplex, remoteAddress: string | undefined): void {
    const connection: TrackedConnection = {
      socket,
      addressBucket: addressBucketOf(remoteAddress),
      owner: undefined,
      timer: undefined,
      requestsInFlight: 0,
      closeWhenIdle: false,
    };
    const sameAddress = this.pendingByAddress.get(connection.addressBucket) ?? new Set();
    // Making room by closing the oldest keeps the newest (most likely a live client that is
    // about to send its headers) instead of refusing everyone once an attacker has filled the pool.
    while (sameAddress.size >= this.limits.maxPendingPerAddress) {
      const oldest = sameAddress.values().next().value;
      if (oldest === undefined) break;
      this.evict(oldest);
    }
    while (this.pending.size >= this.limits.maxPendingConnections) {
      const oldest = this.pending.values().next().value;
      if (oldest === undefined) break;
      this.evict(oldest);
    }
    this.connections.set(socket, connection);
    this.pending.set(socket, connection);
    sameAddress.add(connection);
    this.pendingByAddress.set(connection.addressBucket, sameAddress);
    connection.timer = setTimeout(
      () => this.handshakeTimedOut(connection),
      this.limits.handshakeTimeoutMs,
    );
    connection.timer.unref();
    socket.once("close", () => this.forget(connection));
  }

  /**
   * Counts the socket for `apiKey`'s tenant (undefined: the anonymous one), or says which limit
   * refuses it. A keep-alive socket whose next request names another key moves to that key.
   */
  admit(socket: Duplex, apiKey: string | undefined): WireError | undefined {
    const connection = this.connections.get(socket);
    // Not accepted through this guard (already closed and forgotten): nothing to count.
    if (connection === undefined) return undefined;
    const owner = tenantOf(apiKey);
    if (connection.owner === owner) return undefined;
    const held = this.admittedByOwner.get(owner) ?? 0;
    if (held >= this.limits.maxConnectionsPerKey) {
      return new WireError(
        "rate_limited",
        `This API key already has ${held} connections open (max_connections_per_key = ${this.limits.maxConnectionsPerKey}); close one or wait.`,
        { wireCode: "connection_limit_reached", retryable: true, retryAfterMs: RETRY_AFTER_MS },
      );
    }
    const moving = connection.owner !== undefined;
    if (!moving && this.admitted >= this.limits.maxConnections) {
      return new WireError(
        "rate_limited",
        `This server has ${this.admitted} connections open (max_connections = ${this.limits.maxConnections}); retry shortly.`,
        {
          wireCode: "connection_limit_reached",
          status: 503,
          retryable: true,
          retryAfterMs: RETRY_AFTER_MS,
        },
      );
    }
    if (moving) this.release(connection);
    else this.leavePending(connection);
    connection.owner = owner;
    this.admittedByOwner.set(owner, held + 1);
    this.admitted += 1;
    return undefined;
  }

  /** An HTTP request is being answered on the socket: a timeout then waits for its end. */
  requestStarted(socket: Duplex): void {
    const connection = this.connections.get(socket);
    if (connection !== undefined) connection.requestsInFlight += 1;
  }

  requestEnded(socket: Duplex): void {
    const connection = this.connections.get(socket);
    if (connection === undefined) return;
    connection.requestsInFlight = Math.max(0, connection.requestsInFlight - 1);
    if (
      connection.closeWhenIdle &&
      connection.owner === undefined &&
      connection.requestsInFlight === 0
    )
      socket.end();
  }

  /** What is held now, for tests and the operator. */
  counts(): { pending: number; admitted: number } {
    return { pending: this.pending.size, admitted: this.admitted };
  }

  /** Stops every timer (the server is closing its sockets itself). */
  close(): void {
    for (const connection of this.connections.values()) clearTimeout(connection.timer);
  }

  private handshakeTimedOut(connection: TrackedConnection): void {
    if (connection.owner !== undefined) return;
    // A public request (the app's page, /healthz) still being answered gets one more timeout to
    // finish, and the socket is not kept alive after it; a client that does not read its answer
    // loses the socket then.
    if (connection.requestsInFlight > 0 && !connection.closeWhenIdle) {
      connection.closeWhenIdle = true;
      connection.timer?.refresh();
      return;
    }
    connection.socket.destroy();
  }

  private evict(connection: TrackedConnection): void {
    this.forget(connection);
    connection.socket.destroy();
  }

  private leavePending(connection: TrackedConnection): void {
    clearTimeout(connection.timer);
    connection.timer = undefined;
    this.pending.delete(connection.socket);
    const sameAddress = this.pendingByAddress.get(connection.addressBucket);
    sameAddress?.delete(connection);
    if (sameAddress?.size === 0) this.pendingByAddress.delete(connection.addressBucket);
  }

  private release(connection: TrackedConnection): void {
    if (connection.owner === undefined) return;
    const remaining = (this.admittedByOwner.get(connection.owner) ?? 1) - 1;
    if (remaining <= 0) this.admittedByOwner.delete(connection.owner);
    else this.admittedByOwner.set(connection.owner, remaining);
    this.admitted -= 1;
    connection.owner = undefined;
  }

  /** Idempotent: an evicted socket is forgotten at once and again when its close arrives. */
  private forget(connection: TrackedConnection): void {
    if (this.connections.get(connection.socket) !== connection) return;
    this.connections.delete(connection.socket);
    if (connection.owner === undefined) this.leavePending(connection);
    else this.release(connection);
  }
}

/** IPv6 clients usually hold a whole /64, so its addresses share one pending allowance. */
export function addressBucketOf(address: string | undefined): string {
  if (address === undefined) return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(":")}::/64`;
}

function expandIpv6(address: string): string[] {
  const [head = "", tail] = address.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const missing = Math.max(0, 8 - headGroups.length - tailGroups.length);
  return [...headGroups, ...Array.from({ length: missing }, () => "0"), ...tailGroups].map(
    (group) => group.toLowerCase().replace(/^0+(?=.)/, ""),
  );
}
