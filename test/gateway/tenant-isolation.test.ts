// Tenants never see each other: with two API keys, a prompt_cache_key (another key's response id
// among them) reaches only the caller's own engine cache, and stored responses are found only by
// their key.
import { afterEach, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface ResponseBody {
  id: string;
  usage: { input_tokens_details: { cached_tokens: number } } | null;
  error?: { code: string };
}

async function create(
  key: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: ResponseBody }> {
  const { url, model } = harness!;
  const response = await fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, ...body }),
  });
  return { status: response.status, body: (await response.json()) as ResponseBody };
}

const cached = (body: ResponseBody): number => body.usage?.input_tokens_details.cached_tokens ?? -1;

describe("tenant isolation", () => {
  it("a prompt_cache_key is a cache hit for its own key only", async () => {
    harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), {
      apiKeys: ["sk-alice", "sk-mallory"],
    });
    const secret = { input: "The launch code is 0000-1234.", prompt_cache_key: "shared" };
    expect((await create("sk-alice", secret)).status).toBe(200);

    // Mallory guesses the whole prompt under the same cache key: nothing of Alice's is cached for her.
    const guess = await create("sk-mallory", secret);
    expect(guess.status).toBe(200);
    expect(cached(guess.body)).toBe(0);
    // Alice's own follow-up still hits her cache.
    expect(cached((await create("sk-alice", secret)).body)).toBeGreaterThan(0);
  });

  it("another key's response id is neither a cache key nor a previous_response_id", async () => {
    harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), {
      apiKeys: ["sk-alice", "sk-mallory"],
    });
    const input = "My password is hunter2.";
    const alice = await create("sk-alice", { input });
    const id = alice.body.id;

    const probe = await create("sk-mallory", { input, prompt_cache_key: id });
    expect(cached(probe.body)).toBe(0);
    expect(
      cached((await create("sk-alice", { input, prompt_cache_key: id })).body),
    ).toBeGreaterThan(0);

    const chained = await create("sk-mallory", { input: "Go on.", previous_response_id: id });
    expect(chained.status).toBe(404);
    expect(chained.body.error?.code).toBe("previous_response_not_found");
    const fetched = await fetch(`${harness.url}/v1/responses/${id}`, {
      headers: { authorization: "Bearer sk-mallory" },
    });
    expect(fetched.status).toBe(404);
    const own = await fetch(`${harness.url}/v1/responses/${id}`, {
      headers: { authorization: "Bearer sk-alice" },
    });
    expect(own.status).toBe(200);

    // The same holds over WebSocket mode.
    const socket = await RawWsClient.connect(harness.url, { Authorization: "Bearer sk-mallory" });
    socket.send({ type: "response.create", input: "Go on.", previous_response_id: id });
    const error = await socket.waitFor((event) => event.type === "error");
    expect(error.code).toBe("previous_response_not_found");
    socket.socket.terminate();
  });

  it("Chat Completions' prompt_cache_key is scoped by key too", async () => {
    harness = await startGatewayHarness(createSyntheticEngine({ tokens: 4 }), {
      apiKeys: ["sk-alice", "sk-mallory"],
    });
    const chat = async (key: string): Promise<number> => {
      const response = await fetch(`${harness!.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: harness!.model,
          messages: [{ role: "user", content: "Secret plans." }],
          prompt_cache_key: "shared",
        }),
      });
      const body = (await response.json()) as {
        usage: { prompt_tokens_details?: { cached_tokens: number } };
      };
      return body.usage.prompt_tokens_details?.cached_tokens ?? 0;
    };
    await chat("sk-alice");
    expect(await chat("sk-mallory")).toBe(0);
    expect(await chat("sk-alice")).toBeGreaterThan(0);
  });

  it("the embedded engine clears another tenant's KV cache before reusing its sequence", async () => {
    // One sequence: every request lands on the sequence the previous one used.
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 2048,
    });
    harness = await startGatewayHarness(engine, { apiKeys: ["sk-alice", "sk-mallory"] });
    const prompt = "The launch code is 0000-1234, and nobody else may read it.";
    const alice = await create("sk-alice", { input: prompt, max_output_tokens: 2 });
    expect(alice.status).toBe(200);
    // Mallory's guess shares a long prefix with Alice's prompt, under a cache key of her own.
    const guess = await create("sk-mallory", {
      input: "The launch code is 0000-9999.",
      max_output_tokens: 2,
      prompt_cache_key: "probe",
    });
    expect(guess.status).toBe(200);
    expect(cached(guess.body)).toBe(0);
    // Within one tenant, a new conversation still reuses the shared prefix.
    const again = await create("sk-mallory", {
      input: "The launch code is 0000-9998.",
      max_output_tokens: 2,
      prompt_cache_key: "another",
    });
    expect(cached(again.body)).toBeGreaterThan(0);
  });
});
