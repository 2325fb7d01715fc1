// One address in front of the `spark serve` of whichever test holds a shared window (see
// shared-window.ts): the window's `spark.serverUrl` names this forwarder for the whole file, and
// each test points it at its own server. A switch ends the connections open to the one before, so
// no kept-alive socket carries a request to the previous test's server: the extension's quick edit
// and completion requests open connections as they go, and its Ask view connects again when its
// WebSocket has closed.
import { createServer, connect, type Server, type Socket } from "node:net";

export class ServerSwitch {
  private target: { host: string; port: number } | undefined;
  private readonly sockets = new Set<Socket>();

  private readonly server: Server = createServer((client) => this.forward(client));
  /** The address the window is given: `http://127.0.0.1:<port>`. */
  private address = "";

  get url(): string {
    return this.address;
  }

  static async start(): Promise<ServerSwitch> {
    const instance = new ServerSwitch();
    const { server } = instance;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === "string")
      throw new Error("the server switch has no TCP address");
    instance.address = `http://127.0.0.1:${address.port}`;
    return instance;
  }

  /** Sends new connections to `url`'s server and ends those open to the one before. */
  switchTo(url: string): void {
    const parsed = new URL(url);
    this.target = { host: parsed.hostname, port: Number(parsed.port) };
    this.endConnections();
  }

  /** Ends the open connections and refuses new ones until the next `switchTo`: no server is up. */
  disconnect(): void {
    this.target = undefined;
    this.endConnections();
  }

  async close(): Promise<void> {
    this.endConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private endConnections(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private forward(client: Socket): void {
    if (this.target === undefined) {
      client.destroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
      // Either side failing ends both: the client sees a closed connection, as from the server.
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
