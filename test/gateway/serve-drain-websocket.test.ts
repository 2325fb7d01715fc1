// A drain loses no request a WebSocket client sent: a real `spark serve` is sent SIGTERM while a
// client's `response.create` is still on its way (held in a relay, as a busy proxy or a loaded
// machine holds it), and while a client answers a finished response with its next create at once
// (as Codex sends a turn's tool outputs). Both are served to `response.completed` within the
// grace period, with no error event; then the socket closes 1001 and the replica exits 0. Before,
// the drain closed every idle socket at once (and ended once no run was left), so both requests
// met a bare 1001 close: the load-balancer test's "socket closed (1001 server shutting down)
// while waiting".
import type WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatedRelay, type GatedRelay } from "./support/gated-relay.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";
import { createReplicaFleet, type ReplicaFleet } from "./support/serve-replicas.ts";

const GRACE_SECONDS = 5;

/** Polls until the condition holds (each test's own timeout bounds it). */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Resolves with the first of these events the socket emits. */
function firstOf(socket: WebSocket, events: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    for (const event of events) socket.once(event, () => resolve(event));
  });
}

// The cases run at once: each has its own replica (and relay), and mostly waits on the drain.
describe.concurrent("a drain and the WebSocket requests on their way", () => {
  let fleet: ReplicaFleet;
  const relays: GatedRelay[] = [];

  beforeAll(() => {
    fleet = createReplicaFleet(`[serve]\ndrain_grace_seconds = ${GRACE_SECONDS}\n`);
  });

  afterAll(async () => {
    for (const relay of relays) await relay.close();
    await fleet?.stopAll();
  });

  it("serves the response.create requests still on their way at SIGTERM, then closes 1001", async () => {
    const script = fleet.script("in-flight", [
      { text: "first turn", delayMs: 30 },
      { text: "served after all", delayMs: 30 },
      { text: "served after all", delayMs: 30 },
    ]);
    const replica = await fleet.start(["--model", `script:${script}`]);
    const relay = await startGatedRelay(replica.url);
    relays.push(relay);
    // One connection that has served a turn, and one fresh (its first request yet to come).
    const used = await RawWsClient.connect(relay.url);
    used.send({ type: "response.create", model: "script", input: "First." });
    expect((await used.finalEvent(0, 10_000)).type).toBe("response.completed");
    const fresh = await RawWsClient.connect(relay.url);

    // Their creates leave the clients but are held on the way; the drain starts meanwhile.
    relay.hold();
    used.send({ type: "response.create", model: "script", input: "In flight." });
    fresh.send({ type: "response.create", model: "script", input: "In flight too." });
    const noticed = [used, fresh].map((client) => firstOf(client.socket, ["ping", "close"]));
    process.kill(replica.pid, "SIGTERM");
    // The replica's first word to each idle socket: a close (its request is lost) or a ping,
    // whose pong now follows the request through the relay.
    await Promise.all(noticed);
    relay.release();

    for (const [client, from] of [
      [used, used.events.length],
      [fresh, 0],
    ] as const) {
      const final = await client.finalEvent(from, 10_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${JSON.stringify(client.events)}\n${replica.log}`);
      });
      expect(final.type).toBe("response.completed");
      expect(client.events.filter((event) => event.type === "error")).toEqual([]);
      expect(await client.closed(GRACE_SECONDS * 1000)).toBe(1001);
    }
    expect(await replica.exited).toBe(0);
    expect(replica.log).toMatch(/drained: 2 finished, 0 handed over to other replicas, 0 stopped/);
  }, 60_000);

  it("serves the next response.create a client sends the moment its response completes", async () => {
    const words = Array.from({ length: 10 }, (_, index) => `w${index}`).join(" ");
    const script = fleet.script("follow-up", [
      { text: words, delayMs: 100 },
      { text: "the follow-up", delayMs: 30 },
    ]);
    const replica = await fleet.start(["--model", `script:${script}`]);
    const client = await RawWsClient.connect(replica.url);
    let followed = false;
    // In the handler, before any later frame (a ping, a close) is read: as soon as a client can.
    client.socket.on("message", (data: Buffer) => {
      const event = JSON.parse(data.toString("utf8")) as { type: string };
      if (event.type !== "response.completed" || followed) return;
      followed = true;
      client.send({ type: "response.create", model: "script", input: "Follow-up." });
    });
    client.send({ type: "response.create", model: "script", input: "First." });
    await client.waitFor((event) => event.type === "response.output_text.delta");
    process.kill(replica.pid, "SIGTERM");

    const first = await client.finalEvent(0, 10_000);
    expect(first.type).toBe("response.completed");
    const second = await client
      .finalEvent(client.events.indexOf(first) + 1, 10_000)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\n${JSON.stringify(client.events.slice(-3))}`);
      });
    expect(second.type).toBe("response.completed");
    expect(client.events.filter((event) => event.type === "error")).toEqual([]);
    expect(await client.closed(GRACE_SECONDS * 1000)).toBe(1001);
    expect(await replica.exited).toBe(0);
    expect(replica.log).toMatch(/drained: 2 finished, 0 handed over to other replicas, 0 stopped/);
  }, 60_000);

  it("serves the first request of a socket that read the drain's ping with its handshake", async () => {
    const script = fleet.script("first-frame", [{ text: "served after all", delayMs: 30 }]);
    const replica = await fleet.start(["--model", `script:${script}`]);
    const relay = await startGatedRelay(replica.url);
    relays.push(relay);
    // The handshake's answer waits in the relay; so does whatever the replica sends next.
    relay.hold("to-client");
    const connecting = RawWsClient.connect(relay.url);
    await until(() => relay.heldBytes("to-client") > 0);
    process.kill(replica.pid, "SIGTERM");
    await until(async () => {
      const ready = await fetch(`${replica.url}/readyz`).catch(() => undefined);
      return ready === undefined || ready.status === 503;
    });
    // One read: the 101 and anything the drain sent at its start. ws answers a ping in that read
    // before the first send below runs, so a pong there would reach the replica first.
    relay.release();
    const client = await connecting;
    client.send({ type: "response.create", model: "script", input: "First words." });

    const final = await client.finalEvent(0, 10_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${JSON.stringify(client.events)}\n${replica.log}`);
    });
    expect(final.type).toBe("response.completed");
    expect(await client.closed(GRACE_SECONDS * 1000)).toBe(1001);
    expect(await replica.exited).toBe(0);
  }, 60_000);
});
