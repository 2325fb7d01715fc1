// A WebSocket's timers: ping/pong heartbeats that cut a dead peer, and the connection lifetime,
// which closes the socket once its response in flight (if any) has ended.
import type { WebSocket } from "ws";

export interface WsKeepaliveOptions {
  heartbeatIntervalMs: number;
  /** 0 means unlimited. */
  lifetimeMs: number;
  isBusy: () => boolean;
  onClose: (reason: "heartbeat_timeout" | "lifetime") => void;
  /** Called just before a lifetime close, so the client can be told why (an error event). */
  onLifetimeReached?: () => void;
}

export class WsKeepalive {
  private alive = true;
  private lifetimeReached = false;
  private readonly heartbeat: NodeJS.Timeout | undefined;
  private readonly lifetime: NodeJS.Timeout | undefined;

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
    if (options.lifetimeMs > 0) {
      this.lifetime = setTimeout(() => {
        this.lifetimeReached = true;
        this.idle();
      }, options.lifetimeMs);
      this.lifetime.unref();
    }
  }

  /** The connection has no response in flight: close it now if its lifetime is over. */
  idle(): void {
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
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    if (this.lifetime !== undefined) clearTimeout(this.lifetime);
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
