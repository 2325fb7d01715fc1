// The forwarder a shared editor window's settings name (support/server-switch.ts): a request goes
// to the server switched to last, even over a client's kept-alive connection from before, and to
// none once it is disconnected (a shared window between two tests).
import { createServer, Agent, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ServerSwitch } from "./support/server-switch.ts";

function answering(text: string): Promise<{ server: Server; url: string }> {
  const server = createServer((_request, response) => response.end(text));
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    }),
  );
}

function read(url: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve(body));
    }).on("error", reject);
  });
}

describe("the server switch", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /** Servers answering `texts`, a switch in front of them and a client keeping one connection. */
  async function setUp(...texts: string[]) {
    const servers = await Promise.all(texts.map(answering));
    const serverSwitch = await ServerSwitch.start();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => {
      agent.destroy();
      await serverSwitch.close();
      for (const { server } of servers) server.closeAllConnections();
      await Promise.all(servers.map(({ server }) => new Promise((r) => server.close(r))));
    });
    return { servers, serverSwitch, agent };
  }

  it("sends each request to the server switched to last, kept-alive connections included", async () => {
    const {
      servers: [first, second],
      serverSwitch,
      agent,
    } = await setUp("first", "second");
    if (first === undefined || second === undefined) throw new Error("two servers were started");

    serverSwitch.switchTo(first.url);
    expect(await read(serverSwitch.url, agent)).toBe("first");
    expect(await read(serverSwitch.url, agent)).toBe("first");
    expect(Object.values(agent.freeSockets).flat()).toHaveLength(1);
    serverSwitch.switchTo(second.url);
    // The agent's idle socket to the first server is ended (a client learns it as the close
    // arrives, which the window's next request, seconds later, always finds done): a new one.
    await expect.poll(() => Object.values(agent.freeSockets).flat().length).toBe(0);
    expect(await read(serverSwitch.url, agent)).toBe("second");
    expect(await read(serverSwitch.url, agent)).toBe("second");
  });

  it("ends open connections and refuses new ones while disconnected, until the next switch", async () => {
    const {
      servers: [only],
      serverSwitch,
      agent,
    } = await setUp("only");
    if (only === undefined) throw new Error("one server was started");

    serverSwitch.switchTo(only.url);
    expect(await read(serverSwitch.url, agent)).toBe("only");
    serverSwitch.disconnect();
    await expect.poll(() => Object.values(agent.freeSockets).flat().length).toBe(0);
    await expect(read(serverSwitch.url, agent)).rejects.toThrow(/socket hang up|ECONNRESET/);
    serverSwitch.switchTo(only.url);
    expect(await read(serverSwitch.url, agent)).toBe("only");
  });
});
