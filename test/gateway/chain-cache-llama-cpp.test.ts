// A previous_response_id chain without a prompt_cache_key on the embedded engine: its turns carry
// no client key (nothing the gateway invents per turn), and the second turn still finds the first
// turn's KV cache, although another conversation ran in between on the same engine.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

let harness: GatewayHarness;
beforeAll(async () => {
  const engine = await createLlamaCppEngine({
    modelPath: await ensureTestModel(),
    threads: 1,
    sequences: 2,
    contextSize: 2048,
  });
  harness = await startGatewayHarness(engine);
});
afterAll(async () => {
  await harness.close();
  await harness.engine.dispose();
});

interface Usage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
}

async function create(body: Record<string, unknown>): Promise<{ id: string; usage: Usage }> {
  const reply = await fetch(`${harness.url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: harness.model, max_output_tokens: 4, ...body }),
  });
  expect(reply.status).toBe(200);
  return (await reply.json()) as { id: string; usage: Usage };
}

it("a chain's second turn reuses its first turn's cache", { timeout: 60_000 }, async () => {
  // Instructions do not carry over a chain: a client sends them every turn.
  const instructions = "You review pull requests for a payments service.";
  const first = await create({
    instructions,
    input: "Summarize the change to the retry policy in three short points, please.",
  });
  const other = await create({ input: "Write a haiku about the sea, nothing else." });
  expect(other.usage.input_tokens_details.cached_tokens).toBeLessThan(8);
  const second = await create({
    instructions,
    input: "Now list the risks.",
    previous_response_id: first.id,
  });
  process.stdout.write(
    `\nchain: first turn ${first.usage.input_tokens} input tokens; second turn ${second.usage.input_tokens}, ${second.usage.input_tokens_details.cached_tokens} cached\n`,
  );
  // Its whole first prompt at least (the shared template's few tokens would be far fewer).
  expect(second.usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(
    first.usage.input_tokens,
  );
  const third = await create({
    instructions,
    input: "And the tests?",
    previous_response_id: second.id,
  });
  expect(third.usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(
    second.usage.input_tokens,
  );
});
