// A Codex-shaped warm-up on the embedded engine: `generate: false` with the developer message and
// tools, then the real request chained to it, adding a second developer message (Codex's skills
// list) and the user's message, with the same tools. The real request must find (almost) the whole
// warm-up in the cache: the tool block stays right after the first system message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";

const tools = ["exec_command", "apply_patch", "view_image"].map((name) => ({
  type: "function",
  name,
  description: `The ${name} tool: ${"describes what it does at some length. ".repeat(6)}`,
  strict: false,
  parameters: {
    type: "object",
    properties: { input: { type: "string", description: "What to run or change." } },
    required: ["input"],
  },
}));

function developer(text: string) {
  return { type: "message", role: "developer", content: [{ type: "input_text", text }] };
}

interface ResponseBody {
  id: string;
  status: string;
  usage: { input_tokens: number; input_tokens_details: { cached_tokens: number } };
}

describe("a warm-up's prefill is reused by the request that follows it", () => {
  let harness: GatewayHarness;
  beforeAll(async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
    harness = await startGatewayHarness(engine);
  });
  afterAll(async () => {
    await harness?.close();
    await harness?.engine.dispose();
  });

  async function create(body: Record<string, unknown>): Promise<ResponseBody> {
    const response = await fetch(`${harness.url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: harness.model, prompt_cache_key: "codex-thread", ...body }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as ResponseBody;
  }

  it("caches at least 90% of the warm-up's prompt for the real request with a second developer message", async () => {
    const warmUp = await create({
      input: [developer(`You are a coding agent. ${"Follow the repository's rules. ".repeat(20)}`)],
      tools,
      generate: false,
    });
    expect(warmUp.status).toBe("completed");
    const real = await create({
      previous_response_id: warmUp.id,
      input: [
        developer(`<skills_instructions>\n${"A skill is a set of local instructions. ".repeat(8)}`),
        { type: "message", role: "user", content: [{ type: "input_text", text: "Say hi" }] },
      ],
      tools,
      max_output_tokens: 4,
    });
    const warmTokens = warmUp.usage.input_tokens;
    expect(real.usage.input_tokens).toBeGreaterThan(warmTokens);
    expect(real.usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(0.9 * warmTokens);
  });
});
