// What is typed while spark starts, in a real terminal: `spark --server` against a stand-in agent
// server that takes a second and a half to answer session/start, the way loading a model does.
// The keys sent meanwhile must not be echoed above the UI, and their Enter must send them as the
// first turn (issue 27: they were echoed, and the Enter became a newline in the input).
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { hasTmux, SPARK, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-type-ahead");
const SESSION = { sessionId: "s1", cwd: "/repo", live: true, status: "idle" } as const;

/** Answers the agent protocol's few startup calls; session/start after `onStart` and a wait. */
async function slowAgentServer(onStart: () => void) {
  const sockets = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await once(sockets, "listening");
  const started: string[] = [];
  sockets.on("connection", (socket) => {
    socket.on("message", (data: Buffer) => {
      const request = JSON.parse(data.toString()) as {
        id: number;
        method: string;
        params: { text?: string };
      };
      const reply = (result: unknown): void =>
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }));
      if (request.method === "session/start") {
        onStart();
        setTimeout(() => reply({ session: SESSION }), 1500);
      } else if (request.method === "session/attach") {
        reply({ session: SESSION, replayedEvents: 0 });
      } else if (request.method === "turn/start") {
        started.push(request.params.text ?? "");
        reply({ started: true });
      } else if (request.method === "session/detach") reply({ detached: true });
      else reply({});
    });
  });
  const { port } = sockets.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}`, started, close: () => sockets.close() };
}

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) while it starts", () => {
  afterAll(() => {
    if (hasTmux) server.kill();
  });

  it("keeps what is typed before the UI is up, unechoed, and sends it on its Enter", async () => {
    const agent = await slowAgentServer(() =>
      server.run("send-keys", "-t", "ahead", "typed early", "Enter"),
    );
    try {
      const command = `'${process.execPath}' '${SPARK}' --server '${agent.url}'; sleep 600`;
      server.run("new-session", "-d", "-s", "ahead", "-x", "100", "-y", "30", command);
      const pane = await server.waitForPane(
        "ahead",
        "started with the type-ahead sent",
        (text) => text.includes("idle ·") && agent.started.length > 0,
      );
      expect(agent.started).toEqual(["typed early"]);
      // Neither echoed above the UI nor left in the input.
      expect(pane).not.toContain("typed early");
    } finally {
      agent.close();
    }
  });
});
