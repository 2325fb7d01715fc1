// The request bodies Codex CLI 0.169.0 really sends (captured, ids and paths sanitized) posted to
// a gateway over the scripted engine: what the engine is given, and the items Codex gets back.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptEngine } from "../../src/engines/script/script-engine.ts";
import type { ResponseObject } from "../../src/protocol/responses-events.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";

function fixture(name: string): Record<string, unknown> {
  const url = new URL(`../fixtures/codex/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
}

let harness: GatewayHarness | undefined;
afterEach(async () => harness?.close());

async function post(body: Record<string, unknown>): Promise<ResponseObject> {
  const response = await fetch(`${harness?.url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: false }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as ResponseObject;
}

describe("Codex CLI 0.169.0 requests", () => {
  it("fallback toolset: namespace tools are flattened for the engine and named back", async () => {
    const body = fixture("request-fallback-model.json");
    const engine = await createScriptEngine({
      model: String(body.model),
      turns: [{ toolCalls: [{ name: "multi_agent_v1__spawn_agent", arguments: {} }] }],
    });
    harness = await startGatewayHarness(engine);
    const response = await post(body);
    const names = engine.requests[0]?.tools?.map((tool) => tool.name) ?? [];
    expect(names).toContain("exec_command");
    expect(names).toContain("multi_agent_v1__spawn_agent");
    expect(names.some((name) => name.includes("web_search"))).toBe(false);
    expect(response.output[0]).toMatchObject({
      type: "function_call",
      name: "spawn_agent",
      namespace: "multi_agent_v1",
    });
    expect(response.tools.map((tool) => tool.type)).not.toContain("web_search");
  });

  it("gpt-5.5 toolset: apply_patch is a custom tool; its call comes back as custom_tool_call", async () => {
    const body = fixture("request-gpt-5.5.json");
    const patch = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** End Patch\n";
    const engine = await createScriptEngine({
      model: String(body.model),
      turns: [
        { toolCalls: [{ name: "apply_patch", input: patch, id: "call_patch" }] },
        { text: "Done.", expect: { lastMessageRole: "tool", lastMessageIncludes: "Success" } },
      ],
    });
    harness = await startGatewayHarness(engine);
    const first = await post(body);
    const applyPatch = engine.requests[0]?.tools?.find((tool) => tool.name === "apply_patch");
    expect(applyPatch?.parameters).toMatchObject({ required: ["input"] });
    expect(applyPatch?.description).toContain("grammar");
    expect(first.output[0]).toMatchObject({
      type: "custom_tool_call",
      call_id: "call_patch",
      name: "apply_patch",
      input: patch,
    });
    // Codex's next request repeats the conversation with the call and its output.
    const input = body.input as unknown[];
    await post({
      ...body,
      input: [
        ...input,
        first.output[0],
        {
          type: "custom_tool_call_output",
          call_id: "call_patch",
          output: "Success. Updated: a.txt",
        },
      ],
    });
    expect(engine.requests[1]?.messages.at(-2)).toMatchObject({
      role: "assistant",
      toolCalls: [{ name: "apply_patch", arguments: JSON.stringify({ input: patch }) }],
    });
  });
});
