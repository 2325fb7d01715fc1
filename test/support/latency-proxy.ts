// A loopback TCP relay that delivers what its clients send `delayMs` late, in order, and relays the
// replies at once: a process that reaches a real server through it sees that server one round trip
// of `delayMs` away (a replica whose Redis is in another zone), while others reach it directly.
import { createConnection, createServer, type Socket } from "node:net";

export interface LatencyProxy {
  readonly port: number;
  close(): Promise<void>;
}

export async function startLatencyProxy(
  target: { host: string; port: number },
  delayMs: number,
): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    trackRelayPair(client, upstream, sockets);
    // Timers of one delay fire in the order they were set: the bytes keep their order.
    client.on("data", (chunk: Buffer) => {
      setTimeout(() => {
        if (!upstream.destroyed) upstream.write(chunk);
      }, delayMs);
    });
    client.on("end", () => setTimeout(() => upstream.end(), delayMs));
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the proxy has no port");
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * A relay's two sockets: Nagle off, both in `sockets` while open, and both destroyed when either
 * fails. As Redis clients and servers do, no Nagle: it would hold a write back behind the ACK of
 * the one before it (a delayed ACK: up to 40 ms), a stall that is not what a relay test measures.
 */
export function trackRelayPair(client: Socket, upstream: Socket, sockets: Set<Socket>): void {
  for (const socket of [client, upstream]) {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {
      client.destroy();
      upstream.destroy();
    });
  }
}
