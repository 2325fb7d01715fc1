// `spark serve` behind the load balancers docs/scale-out.md names (issue 39, item 9), with the
// configs given there. haproxy: two replicas, health checks on /readyz, `option redispatch`,
// `retry-on conn-failure empty-response 503`; SIGTERM of one replica while HTTP requests and
// WebSocket upgrades keep coming: none fails (the draining replica's 503s and its closed port are
// retried on the other). nginx: its default `Host: <upstream name>` gets 403 host_not_allowed
// from a loopback replica; with `proxy_set_header Host $host` HTTP, SSE and WebSocket go through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  haproxyReplicasConfig,
  loadBalancerMissingReason,
  startHaproxy,
  startNginx,
  type LoadBalancer,
} from "../support/load-balancers.ts";
import { freePort } from "../support/redis-server.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";
import { createReplicaFleet, type ReplicaFleet } from "./support/serve-replicas.ts";

const haproxyMissing = loadBalancerMissingReason("haproxy");
const nginxMissing = loadBalancerMissingReason("nginx");
if (haproxyMissing !== undefined) console.warn(`Skipping the haproxy test: ${haproxyMissing}.`);
if (nginxMissing !== undefined) console.warn(`Skipping the nginx tests: ${nginxMissing}.`);

/** nginx's http { } block for one replica; `fixed` adds what a loopback replica needs. */
function nginxHttpBlock(port: number, replicaPort: number, fixed: boolean): string {
  return `  map $http_upgrade $connection_upgrade {
    default upgrade;
    ''      close;
  }
  upstream spark_replicas {
    server 127.0.0.1:${replicaPort};
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://spark_replicas;
      proxy_http_version 1.1;
${fixed ? "      proxy_set_header Host $host;\n" : ""}      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_buffering off;
      proxy_read_timeout 1h;
    }
  }`;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

async function httpTurn(url: string, input: string): Promise<string> {
  try {
    const response = await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "script", input }),
    });
    const body = (await response.json()) as { status?: string; error?: { code?: string } };
    return response.status === 200
      ? (body.status ?? "no status")
      : `${response.status} ${body.error?.code}`;
  } catch (error) {
    return `thrown: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function webSocketTurn(url: string, input: string): Promise<string> {
  let client: RawWsClient | undefined;
  try {
    client = await RawWsClient.connect(url);
    client.send({ type: "response.create", model: "script", input });
    const final = await client.finalEvent(0, 20_000);
    return final.type === "response.completed" ? "completed" : final.type;
  } catch (error) {
    return `ws thrown: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    client?.socket.close();
  }
}

describe("behind load balancers", () => {
  let fleet: ReplicaFleet;
  let script: string;
  const balancers: LoadBalancer[] = [];
  beforeAll(() => {
    fleet = createReplicaFleet("[serve]\ndrain_grace_seconds = 5\n");
    script = fleet.script(
      "balanced",
      Array.from({ length: 2000 }, () => ({ text: "one two three", delayMs: 40 })),
    );
  });
  afterAll(async () => {
    for (const balancer of balancers) await balancer.stop();
    await fleet?.stopAll();
  });

  it.skipIf(haproxyMissing !== undefined)(
    "haproxy: SIGTERM of one replica under HTTP and WebSocket load fails no request",
    async () => {
      const [first, second] = await Promise.all([
        fleet.start(["--model", `script:${script}`]),
        fleet.start(["--model", `script:${script}`]),
      ]);
      const port = await freePort();
      const haproxy = await startHaproxy(
        haproxyReplicasConfig(port, [portOf(first.url), portOf(second.url)]),
        port,
      );
      balancers.push(haproxy);
      // No wait for health checks: haproxy starts its servers up (one failed check takes one
      // down, `fall 1`), and both replicas were ready before it started.

      const outcomes: string[] = [];
      let running = true;
      const loop = async (turn: (url: string, input: string) => Promise<string>): Promise<void> => {
        for (let index = 0; running; index += 1)
          outcomes.push(await turn(haproxy.url, `n${index}`));
      };
      const loops = [
        loop(httpTurn),
        loop(httpTurn),
        loop(httpTurn),
        loop(webSocketTurn),
        loop(webSocketTurn),
      ];
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const before = outcomes.length;
      process.kill(first.pid, "SIGTERM");
      expect(await first.exited).toBe(0);
      // Past the exit: its port refuses connections, which haproxy retries elsewhere.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      running = false;
      await Promise.all(loops);

      expect(before).toBeGreaterThan(0);
      expect(outcomes.length).toBeGreaterThan(before + 5);
      expect(outcomes.filter((outcome) => outcome !== "completed")).toEqual([]);
    },
    90_000,
  );

  it.skipIf(nginxMissing !== undefined)(
    "nginx: Host of the upstream gets 403 host_not_allowed; proxy_set_header Host $host serves HTTP, SSE and WebSocket",
    async () => {
      const replica = await fleet.start(["--model", `script:${script}`]);
      const brokenPort = await freePort();
      const broken = await startNginx(
        nginxHttpBlock(brokenPort, portOf(replica.url), false),
        brokenPort,
      );
      balancers.push(broken);
      const refused = await fetch(`${broken.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "script", input: "hi" }),
      });
      expect(refused.status).toBe(403);
      expect(JSON.stringify(await refused.json())).toContain("host_not_allowed");

      const fixedPort = await freePort();
      const fixed = await startNginx(
        nginxHttpBlock(fixedPort, portOf(replica.url), true),
        fixedPort,
      );
      balancers.push(fixed);
      expect(await httpTurn(fixed.url, "hi")).toBe("completed");
      const streamed = await fetch(`${fixed.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "script", input: "hi", stream: true }),
      });
      expect(streamed.status).toBe(200);
      const events = await streamed.text();
      expect(events).toMatch(/event: response\.output_text\.delta/);
      expect(events).toMatch(/event: response\.completed/);
      expect(await webSocketTurn(fixed.url, "hi")).toBe("completed");
    },
    60_000,
  );
});
