// A loopback TCP relay whose directions can be held: while one is held, what is sent that way
// waits in the relay and goes on, in order and in one write, when released. A test puts a
// client's frame "on the wire" at an exact moment, or hands a client two frames in one read, as a
// slow network or a busy proxy would.
import { createConnection, createServer, type Socket } from "node:net";
import { trackRelayPair } from "../../support/latency-proxy.ts";

export type RelayDirection = "to-server" | "to-client";

export interface GatedRelay {
  readonly url: string;
  /** Holds what is sent this way from now on. */
  hold(direction?: RelayDirection): void;
  /** Bytes held so far this way, over all connections. */
  heldBytes(direction: RelayDirection): number;
  /** Sends on what was held (each connection's bytes in one write) and lets the rest through. */
  release(): void;
  close(): Promise<void>;
}

/** One direction of one relayed connection. */
class RelayLeg {
  held: Buffer[] = [];
  endHeld = false;

  constructor(private readonly to: Socket) {}

  pass(chunk: Buffer | undefined, holding: boolean): void {
    if (holding) {
      if (chunk === undefined) this.endHeld = true;
      else this.held.push(chunk);
      return;
    }
    if (this.to.destroyed) return;
    if (chunk === undefined) this.to.end();
    else this.to.write(chunk);
  }

  flush(): void {
    const chunk = Buffer.concat(this.held.splice(0));
    if (chunk.length > 0 && !this.to.destroyed) this.to.write(chunk);
    if (this.endHeld && !this.to.destroyed) this.to.end();
    this.endHeld = false;
  }
}

export async function startGatedRelay(targetUrl: string): Promise<GatedRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const legs = { "to-server": new Set<RelayLeg>(), "to-client": new Set<RelayLeg>() };
  const holding = { "to-server": false, "to-client": false };
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    trackRelayPair(client, upstream, sockets);
    const toServer = new RelayLeg(upstream);
    const toClient = new RelayLeg(client);
    legs["to-server"].add(toServer);
    legs["to-client"].add(toClient);
    client.on("data", (chunk: Buffer) => toServer.pass(chunk, holding["to-server"]));
    client.on("end", () => toServer.pass(undefined, holding["to-server"]));
    upstream.on("data", (chunk: Buffer) => toClient.pass(chunk, holding["to-client"]));
    upstream.on("end", () => toClient.pass(undefined, holding["to-client"]));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the relay has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    hold(direction = "to-server") {
      holding[direction] = true;
    },
    heldBytes: (direction) =>
      [...legs[direction]].reduce(
        (sum, leg) => sum + leg.held.reduce((bytes, chunk) => bytes + chunk.length, 0),
        0,
      ),
    release() {
      for (const direction of ["to-server", "to-client"] as const) {
        holding[direction] = false;
        for (const leg of legs[direction]) leg.flush();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
