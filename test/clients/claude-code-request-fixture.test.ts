// The request Claude Code 2.1.112 really sends on the last turn of a Read → Edit → Bash task
// (captured through a proxy; session, device and paths sanitized), posted as it came, headers and
// all, to a gateway over the scripted engine: what the engine is given, and the stream sent back.
// It runs without Claude Code installed; test/clients/claude-code.test.ts runs the CLI itself.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createScriptEngine } from "../../src/engines/script/script-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "../gateway/support/gateway-harness.ts";

interface CapturedRequest {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

const captured = JSON.parse(
  readFileSync(
    new URL("../fixtures/claude-code/request-2.1.112-tool-round-trip.json", import.meta.url),
    "utf8",
  ),
) as CapturedRequest;

let harness: GatewayHarness | undefined;
afterEach(async () => harness?.close());

describe("Claude Code 2.1.112's request", () => {
  it("reaches the engine as its system prompt, tools and tool round trips", async () => {
    const engine = await createScriptEngine({
      model: "scripted",
      turns: [{ text: "Done: greet.txt now says hi world." }],
    });
    harness = await startGatewayHarness(engine, { apiKeys: ["cc-key"] });
    const { host: _host, ...headers } = captured.headers;
    const response = await fetch(`${harness.url}${captured.url}`, {
      method: "POST",
      headers,
      body: JSON.stringify(captured.body),
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect([...text.matchAll(/^event: (\S+)$/gm)].map((match) => match[1])).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);

    const request = engine.requests[0];
    const tools = request?.tools?.map((tool) => tool.name) ?? [];
    expect(tools).toHaveLength((captured.body.tools as unknown[]).length);
    expect(tools).toEqual(expect.arrayContaining(["Read", "Edit", "Bash", "Glob", "Grep"]));
    const messages = request?.messages ?? [];
    expect(messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
    expect(messages[0]?.content).toContain("You are a Claude agent");
    expect(messages[2]).toMatchObject({
      content: "Reading it.",
      toolCalls: [{ id: "call_1_1", name: "Read" }],
    });
    expect(messages[3]).toMatchObject({ toolCallId: "call_1_1", name: "Read" });
    expect(messages[3]?.content).toContain("hello world");
    expect(messages.at(-1)).toMatchObject({ toolCallId: "call_3_1", content: "hi world" });
    // Claude Code's 32k max_tokens is the engine's output limit.
    expect(request?.sampling?.maxOutputTokens).toBe(captured.body.max_tokens);
  });
});
