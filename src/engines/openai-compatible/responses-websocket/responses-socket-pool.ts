// The engine's Responses WebSockets: one per session key (so the upstream's connection-local
// chain is there on the session's next turn), a few spare ones for requests without a key or
// while a session's own socket is busy. Bounded: least recently used sessions and idle sockets
// are closed, and a socket is replaced before the upstream's connection lifetime runs out.
import { ResponsesSocket, type ResponsesSocketOptions } from "./responses-socket.ts";

export interface SocketPoolLimits {
  /** Replace a socket this old before its next response (OpenAI closes them at 60 minutes). */
  lifetimeMs: number;
  /** Close a socket that ran no response for this long. */
  idleMs: number;
  /** Sessions holding a socket; the least recently used one is closed past this. */
  maxSessions: number;
  /** Idle sockets kept for requests without a session key. */
  maxSpare: number;
}

export interface WebSocketStats {
  /** Sockets opened since the engine was created: a reused socket does not count again. */
  opened: number;
  /** Sockets held now. */
  open: number;
  /** Sockets running (or draining a cancelled) response now. */
  busy: number;
}

export const defaultSocketPoolLimits: SocketPoolLimits = {
  lifetimeMs: 55 * 60_000,
  idleMs: 10 * 60_000,
  maxSessions: 64,
  maxSpare: 4,
};

export class ResponsesSocketPool {
  /** Insertion order is recency: a used session moves to the end. */
  private readonly sessions = new Map<string, ResponsesSocket>();
  private readonly spare: ResponsesSocket[] = [];
  private readonly idleTimers = new Map<ResponsesSocket, NodeJS.Timeout>();
  private readonly all = new Set<ResponsesSocket>();
  private opened = 0;

  constructor(
    private readonly socketOptions: ResponsesSocketOptions,
    private readonly limits: SocketPoolLimits,
  ) {}

  stats(): WebSocketStats {
    const busy = [...this.all].filter((socket) => socket.busy).length;
    return { opened: this.opened, open: this.all.size, busy };
  }

  /** A socket for one response, marked busy; the caller awaits `ready` and then `release`s it. */
  acquire(sessionKey: string | undefined): ResponsesSocket {
    if (sessionKey === undefined) return this.take(this.takeSpare() ?? this.open());
    const existing = this.sessions.get(sessionKey);
    if (existing !== undefined) {
      const usable = existing.usable(this.limits.lifetimeMs);
      if (usable && !existing.busy) {
        this.sessions.delete(sessionKey);
        this.sessions.set(sessionKey, existing);
        return this.take(existing);
      }
      // Two requests of one session at once: the second gets a socket of its own for this turn.
      if (usable) return this.take(this.takeSpare() ?? this.open());
      // Expired or failed: a response still running there finishes first (release closes it).
      this.sessions.delete(sessionKey);
      if (!existing.busy) this.retire(existing);
    }
    // A new session starts on a warmed spare socket when there is one: its handshake is done.
    const socket = this.takeSpare() ?? this.open();
    this.sessions.set(sessionKey, socket);
    this.evictSessions();
    return this.take(socket);
  }

  /**
   * Opens a spare socket ahead of the first request (engine warm-up); rejects if it cannot. The
   * socket is spare at once, so a request that comes during the handshake takes it and waits.
   */
  async warm(): Promise<void> {
    let socket = this.spare.find((spare) => spare.usable(this.limits.lifetimeMs));
    if (socket === undefined) {
      socket = this.open();
      this.spare.push(socket);
      this.armIdleTimer(socket);
    }
    try {
      await socket.ready;
    } catch (error) {
      this.retire(socket);
      throw error;
    }
  }

  /** The response is over: the socket waits for the session's next turn, or is closed. */
  release(socket: ResponsesSocket): void {
    socket.busy = false;
    socket.discardPending();
    if (!socket.usable(this.limits.lifetimeMs)) {
      this.retire(socket);
      return;
    }
    const owned = [...this.sessions.values()].includes(socket);
    if (!owned) {
      if (this.spare.length >= this.limits.maxSpare) {
        this.retire(socket);
        return;
      }
      this.spare.push(socket);
    }
    this.armIdleTimer(socket);
  }

  /** Closes the socket and forgets it (a failed read, the lifetime, eviction). */
  retire(socket: ResponsesSocket, code = 1000, reason = "done"): void {
    this.forget(socket);
    if (!socket.closed) socket.close(code, reason);
  }

  dispose(): void {
    for (const socket of [...this.all]) this.retire(socket, 1001, "engine disposed");
  }

  private armIdleTimer(socket: ResponsesSocket): void {
    const timer = setTimeout(() => this.retire(socket), this.limits.idleMs);
    timer.unref();
    this.idleTimers.set(socket, timer);
  }

  private open(): ResponsesSocket {
    const socket = new ResponsesSocket(this.socketOptions);
    this.opened += 1;
    this.all.add(socket);
    socket.onClose(() => this.forget(socket));
    return socket;
  }

  private take(socket: ResponsesSocket): ResponsesSocket {
    clearTimeout(this.idleTimers.get(socket));
    this.idleTimers.delete(socket);
    socket.busy = true;
    socket.discardPending();
    return socket;
  }

  private takeSpare(): ResponsesSocket | undefined {
    for (;;) {
      const socket = this.spare.pop();
      if (socket === undefined) return undefined;
      if (socket.usable(this.limits.lifetimeMs)) return socket;
      this.retire(socket);
    }
  }

  private evictSessions(): void {
    for (const [key, socket] of this.sessions) {
      if (this.sessions.size <= this.limits.maxSessions) return;
      this.sessions.delete(key);
      // A busy one finishes its response first; release() then finds it unowned and keeps or closes it.
      if (!socket.busy) this.retire(socket);
    }
  }

  private forget(socket: ResponsesSocket): void {
    this.all.delete(socket);
    clearTimeout(this.idleTimers.get(socket));
    this.idleTimers.delete(socket);
    const spareIndex = this.spare.indexOf(socket);
    if (spareIndex >= 0) this.spare.splice(spareIndex, 1);
    for (const [key, owned] of this.sessions) if (owned === socket) this.sessions.delete(key);
  }
}
