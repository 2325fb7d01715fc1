// Closing an idle WebSocket without cutting off a request its client already sent: a ping goes
// out first and the close waits for its pong. The pong comes after every frame the client sent
// before it read the ping (a connection's bytes stay in order through TCP and every proxy), so a
// `response.create` that was on its way arrives first, makes the connection busy, and is served.
// The ping waits for a quiet moment: a client reading it in the same chunk as the handshake or a
// final event answers it before the request it sends in reply (ws pongs at once, synchronously).
import { randomBytes } from "node:crypto";
import type { WebSocket } from "ws";

/** A peer that has not answered the ping by then is closed anyway (it reads nothing, or is gone). */
const PONG_TIMEOUT_MS = 2000;
/** A client opens a WebSocket to send on it: one that has sent nothing yet gets this long. */
const FIRST_FRAME_WAIT_MS = 2000;
/** Since the client's last frame, or the last response's end, before the ping goes out. */
const QUIET_MS = 250;

export class WsCloseFence {
  /** The payload of the ping in flight; undefined when none is. */
  private pending: Buffer | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Whether the client has sent a frame yet. */
  private heard = false;
  private lastActivity = performance.now();

  constructor(
    private readonly socket: WebSocket,
    private readonly isBusy: () => boolean,
    /** Closes the connection: called once the client has nothing on its way and it is idle. */
    private readonly close: () => void,
  ) {
    socket.on("message", () => {
      this.heard = true;
      this.markActivity();
    });
    socket.on("pong", (data: Buffer) => {
      if (this.pending !== undefined && data.equals(this.pending)) this.settle();
    });
  }

  /** A frame came, or a response ended: the client may send next at once. */
  markActivity(): void {
    this.lastActivity = performance.now();
  }

  /** Closes the connection once the client's frames sent so far have arrived, if it is idle
   * then. Too soon after its last activity, or with a ping already out, it does nothing; a
   * connection busy when the pong comes is left open. Either way: ask again later. */
  closeWhenQuiet(): void {
    if (this.pending !== undefined) return;
    const wait = this.heard ? QUIET_MS : FIRST_FRAME_WAIT_MS;
    if (performance.now() - this.lastActivity < wait) return;
    const payload = randomBytes(8);
    this.pending = payload;
    this.socket.ping(payload);
    this.timer = setTimeout(() => this.settle(), PONG_TIMEOUT_MS);
    this.timer.unref();
  }

  stop(): void {
    this.pending = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private settle(): void {
    this.stop();
    if (!this.isBusy()) this.close();
  }
}
