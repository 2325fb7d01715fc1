// A TCP proxy in front of `spark serve` whose connections a test can cut at once: a dropped
// network, as the browser sees it (its WebSocket closes without a goodbye).
import net from "node:net";

export interface DroppableProxy {
  url: string;
  /** Destroys every open connection; new ones are still accepted. */
  dropAll(): void;
  /** While on, new connections are cut at once: the network stays down. */
  refuseNew(refuse: boolean): void;
  close(): Promise<void>;
}

export async function startDroppableProxy(target: string): Promise<DroppableProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    refuseNew(refuse) {
      refusing = refuse;
    },
    dropAll() {
      for (const socket of sockets) socket.destroy();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
