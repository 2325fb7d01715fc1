// What cache key the gateway hands an upstream: the client's prompt_cache_key (scoped to its
// tenant) and nothing else. A request standing alone carries none, so a client that resends the
// whole conversation each turn is not given a new key per turn; a previous_response_id chain keeps
// the key it started with, and one without a key still stays on one replica of a pool (by the
// chain's affinity key, which no upstream sees). The upstreams replay OpenAI's recorded frames.
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAICompatibleEngine } from "../../src/engines/openai-compatible/index.ts";
import { createGateway } from "../../src/gateway/index.ts";
import { tenantOf } from "../../src/gateway/access/tenant.ts";
import { readFrames, ResponsesWsUpstream } from "../openai-compatible/responses-ws-upstream.ts";
import { ReplayServer } from "../openai-compatible/replay-server.ts";
import { createResponse, startRoutedGateway } from "../router/routed-gateway.ts";

const API_KEY = "sk-alice";
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An upstream speaking the Responses API over one transport, and the bodies it received. */
interface RecordingUpstream {
  baseUrl: string;
  /** Each `response.create` (WebSocket) or POST /v1/responses body (HTTP), in order. */
  received(): Array<Record<string, unknown>>;
  /** The WebSocket connection each request came on (HTTP: none). */
  connections(): number[];
}

/** OpenAI's recorded text response as Responses SSE (`event:` + `data:` per frame). */
function responsesSse(): string {
  return readFrames("text.jsonl")
    .map((line) => line.replaceAll("{{response_id}}", "resp_http_1"))
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join("");
}

const transports: Record<string, () => Promise<RecordingUpstream>> = {
  websocket: async () => {
    const upstream = await ResponsesWsUpstream.start();
    closers.push(() => upstream.close());
    return {
      baseUrl: upstream.baseUrl,
      received: () => upstream.creates().map(({ frame }) => frame),
      connections: () => upstream.creates().map(({ connection }) => connection),
    };
  },
  http: async () => {
    const upstream = await ReplayServer.start();
    closers.push(() => upstream.close());
    upstream.respondWith({ body: responsesSse() });
    const posts = () => upstream.requests.filter((request) => request.url === "/v1/responses");
    return {
      baseUrl: upstream.baseUrl,
      received: () => posts().map((request) => JSON.parse(request.body) as Record<string, unknown>),
      connections: () => [],
    };
  },
};

interface LoopbackGateway {
  url: string;
  model: string;
}

async function gatewayOver(transport: keyof typeof transports): Promise<{
  gateway: LoopbackGateway;
  upstream: RecordingUpstream;
}> {
  const upstream = await transports[transport]!();
  const engine = createOpenAICompatibleEngine({
    preset: "custom",
    api: "responses",
    transport: transport === "websocket" ? "websocket" : "http",
    baseUrl: upstream.baseUrl,
    model: "gpt-5.3-codex-spark",
    apiKey: "sk-upstream",
    warmUp: false,
    timeouts: { connectMs: 2_000, firstByteMs: 2_000, idleMs: 2_000 },
  });
  // The WebSocket upstream lists no models over HTTP: the gateway serves the one configured.
  const model = "gpt-5.3-codex-spark";
  const gateway = createGateway({
    models: {
      list: async () => [{ id: model, engine: engine.kind }],
      resolve: async () => ({ engine, model }),
    },
    config: { host: "127.0.0.1", port: 0, apiKeys: [API_KEY] },
  });
  const { url } = await gateway.listen();
  closers.push(async () => {
    await gateway.close();
    await engine.dispose();
  });
  return { gateway: { url, model }, upstream };
}

async function create(
  harness: LoopbackGateway,
  body: Record<string, unknown>,
): Promise<{ id: string; text: string }> {
  const reply = await fetch(`${harness.url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: harness.model, ...body }),
  });
  const response = (await reply.json()) as {
    id: string;
    status: string;
    output: Array<{ content?: Array<{ text: string }> }>;
  };
  expect(response.status).toBe("completed");
  return { id: response.id, text: response.output[0]?.content?.[0]?.text ?? "" };
}

const cacheKeysSent = (upstream: RecordingUpstream): unknown[] =>
  upstream.received().map((body) => body.prompt_cache_key);

describe.each(["websocket", "http"] as const)(
  "the upstream's prompt_cache_key (%s)",
  (transport) => {
    it("is absent from every turn of a client that resends the whole conversation", async () => {
      const { gateway: harness, upstream } = await gatewayOver(transport);
      const first = await create(harness, { input: "Say hello." });
      expect(first.text).toBe("Hello from the socket.");
      await create(harness, {
        input: [
          { role: "user", content: "Say hello." },
          { role: "assistant", content: first.text },
          { role: "user", content: "Again." },
        ],
      });
      expect(upstream.received()).toHaveLength(2);
      for (const body of upstream.received()) expect(body).not.toHaveProperty("prompt_cache_key");
    });

    it("is the client's own key, scoped to its tenant, on every turn of its chain", async () => {
      const { gateway: harness, upstream } = await gatewayOver(transport);
      const first = await create(harness, { input: "Say hello.", prompt_cache_key: "thread-1" });
      await create(harness, { input: "Again.", previous_response_id: first.id });
      const scoped = `${tenantOf(API_KEY)}/thread-1`;
      expect(cacheKeysSent(upstream)).toEqual([scoped, scoped]);
    });

    it("is absent from a chain the client started without one", async () => {
      const { gateway: harness, upstream } = await gatewayOver(transport);
      const first = await create(harness, { input: "Say hello." });
      const second = await create(harness, { input: "Again.", previous_response_id: first.id });
      await create(harness, { input: "Once more.", previous_response_id: second.id });
      expect(upstream.received()).toHaveLength(3);
      for (const body of upstream.received()) expect(body).not.toHaveProperty("prompt_cache_key");
      if (transport === "websocket") {
        // The chain stays on its upstream socket, continuing the response that socket holds.
        const connections = upstream.connections();
        expect(new Set(connections).size).toBe(1);
        expect(upstream.received().map((body) => body.previous_response_id)).toEqual([
          undefined,
          "resp_ws_1",
          "resp_ws_2",
        ]);
      }
    });
  },
);

describe("a chain without a cache key in a pool of replicas", () => {
  it("stays on one replica from its second turn on", async () => {
    const replicas = await Promise.all([ReplayServer.start(), ReplayServer.start()]);
    for (const replica of replicas) closers.push(() => replica.close());
    const gateway = await startRoutedGateway(`
default_model = "vllm"
[models.vllm]
engine = "openai-compatible"
base_urls = ["${replicas[0].baseUrl}", "${replicas[1].baseUrl}"]
model = "qwen"
`);
    closers.push(() => gateway.close());
    // Turn by turn across an odd number of chains: the pool's rotation of requests without a key
    // would send each chain's consecutive turns to alternate replicas.
    const chains = Array.from({ length: 5 }, (_, index) => `chain-${index}`);
    const last = new Map<string, string>();
    for (let turn = 0; turn < 3; turn += 1) {
      for (const chain of chains) {
        const previous = last.get(chain);
        const response = await createResponse(gateway.url, {
          input: `${chain} turn ${turn}`,
          ...(previous === undefined ? {} : { previous_response_id: previous }),
        });
        expect(response.status).toBe("completed");
        last.set(chain, response.id);
      }
    }
    for (const chain of chains) {
      // Which replica served each chained turn: the request whose last message is that turn's.
      const served = [1, 2].map((turn) =>
        replicas.findIndex((replica) =>
          replica
            .chatRequests()
            .some((request) => lastUserMessage(request.body) === `${chain} turn ${turn}`),
        ),
      );
      expect(served[0]).toBeGreaterThanOrEqual(0);
      expect(served[1]).toBe(served[0]);
    }
    // Chat Completions upstreams are never sent a cache key of Spark's making.
    for (const replica of replicas)
      for (const request of replica.chatRequests())
        expect(request.body).not.toContain("prompt_cache_key");
  });
});

function lastUserMessage(body: string): string | undefined {
  const { messages } = JSON.parse(body) as { messages: Array<{ role: string; content: string }> };
  return messages.filter((message) => message.role === "user").at(-1)?.content;
}
