// A loopback TCP relay whose client-to-server direction can be held: while held, what its clients
// send waits in the relay (in order) and goes on when released; replies pass at once. A test puts
// a client's frame "on the wire" at an exact moment, as a slow network or a busy proxy would.
import { createConnection, createServer, type Socket } from "node:net";

export interface GatedRelay {
  readonly url: string;
  /** Holds what clients send from now on. */
  hold(): void;
  /** Sends on what was held, in order, and lets the rest through. */
  release(): void;
  close(): Promise<void>;
}

export async function startGatedRelay(targetUrl: string): Promise<GatedRelay> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const held: Array<() => void> = [];
  let holding = false;
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk: Buffer) => {
      const forward = (): void => {
        if (!upstream.destroyed) upstream.write(chunk);
      };
      if (holding) held.push(forward);
      else forward();
    });
    client.on("end", () => {
      if (holding) held.push(() => upstream.end());
      else upstream.end();
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the relay has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const forward of held.splice(0)) forward();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
