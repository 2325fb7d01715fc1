// A WebSocket's timers: ping/pong heartbeats that cut a dead peer, the idle timeout (no response
// in flight and nothing from the client), and the connection lifetime, which closes the socket
// once its response in flight (if any) has ended.
import type { WebSocket } from "ws";

export interface WsKeepaliveOptions {
  heartbeatIntervalMs: number;
  /** 0 means unlimited. */
  lifetimeMs: number;
  /** 0 means never: a live peer answering pings could otherwise hold its socket for ever. */
  idleMs: number;
  isBusy: () => boolean;
  onClose: (reason: "heartbeat_timeout" | "lifetime" | "idle") => void;
  /** Called just before a lifetime close, so the client can be told why (an error event). */
  onLifetimeReached?: () => void;
}

export class WsKeepalive {
  private alive = true;
  private lifetimeReached = false;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private readonly lifetime: NodeJS.Timeout | undefined;
  /** One timer for the socket's life, pushed back with refresh() on every frame. */
  private readonly idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: WsKeepaliveOptions,
  ) {
    socket.on("pong", () => {
      this.alive = true;
    });
    if (options.heartbeatIntervalMs > 0) {
      this.heartbeat = setInterval(() => this.beat(), options.heartbeatIntervalMs);
      this.heartbeat.unref();
    }
    if (options.idleMs > 0) {
      this.idleTimer = setTimeout(() => this.idleTimeout(), options.idleMs);
      this.idleTimer.unref();
      socket.on("message", () => this.restartIdleTimer());
    }
    if (options.lifetimeMs > 0) {
      this.lifetime = setTimeout(() => {
        this.lifetimeReached = true;
        this.idle();
      }, options.lifetimeMs);
      this.lifetime.unref();
    }
  }

  /** The connection has no response in flight: the idle countdown restarts, and it closes now if
   * its lifetime is over. */
  idle(): void {
    this.restartIdleTimer();
    if (!this.lifetimeReached || this.options.isBusy()) return;
    this.options.onClose("lifetime");
    this.options.onLifetimeReached?.();
    // 1001 (going away) is a close the OpenAI SDK reconnects after; the reason carries OpenAI's
    // code for clients that read the close rather than the error event.
    this.socket.close(
      1001,
      "websocket_connection_limit_reached: connection lifetime reached; reconnect to continue",
    );
  }

  stop(): void {
    this.stopped = true;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    if (this.lifetime !== undefined) clearTimeout(this.lifetime);
  }

  /** Also re-arms the timer after it fired on a busy connection. */
  private restartIdleTimer(): void {
    if (!this.stopped) this.idleTimer?.refresh();
  }

  private idleTimeout(): void {
    // A response in flight is not idle; its end calls idle(), which starts the count again.
    if (this.options.isBusy()) return;
    this.options.onClose("idle");
    this.socket.close(1001, "idle for idle_timeout_seconds; reconnect to continue");
  }

  private beat(): void {
    if (!this.alive) {
      this.options.onClose("heartbeat_timeout");
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }
}
