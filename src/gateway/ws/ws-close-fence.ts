// Closing an idle WebSocket without cutting off a request its client already sent: a ping goes
// out first and the close waits for its pong. The pong comes after every frame the client sent
// before it read the ping (a connection's bytes stay in order through TCP and every proxy), so a
// `response.create` that was on its way arrives first, makes the connection busy, and is served.
import { randomBytes } from "node:crypto";
import type { WebSocket } from "ws";

/** A peer that has not answered the ping by then is closed anyway (it reads nothing, or is gone). */
const PONG_TIMEOUT_MS = 2000;

export class WsCloseFence {
  /** The payload of the ping in flight; undefined when none is. */
  private pending: Buffer | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly isBusy: () => boolean,
    /** Closes the connection: called once the client has nothing on its way and it is idle. */
    private readonly close: () => void,
  ) {
    socket.on("pong", (data: Buffer) => {
      if (this.pending !== undefined && data.equals(this.pending)) this.settle();
    });
  }

  /** Closes the connection once the client's frames sent so far have arrived, if it is idle
   * then; a connection busy by then is left open (ask again once it is idle). */
  closeWhenQuiet(): void {
    if (this.pending !== undefined) return;
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
