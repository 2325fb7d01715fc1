// The synthetic engine passes the shared Engine contract, plus the behaviours the gateway tests
// rely on: cache reuse per sessionKey, scripted tool calls, failures, and freeing on abort.
import { describe, expect, it } from "vitest";
import { collectStream } from "../collect-stream.ts";
import type { EngineRequest } from "../engine.ts";
import { contractTool, runEngineContract } from "../../../test/support/run-engine-contract.ts";
import { createSyntheticEngine } from "./synthetic-engine.ts";

runEngineContract({
  name: "synthetic",
  createEngine: async () =>
    createSyntheticEngine({
      tokensPerSecond: 2000,
      toolCall: { name: contractTool.name, arguments: '{"city":"Paris"}' },
    }),
});

const userTurn = (content: string, sessionKey?: string): EngineRequest => ({
  messages: [{ role: "user", content }],
  ...(sessionKey === undefined ? {} : { sessionKey }),
});

describe("synthetic engine", () => {
  it("reports the shared prefix as cached input when the sessionKey is reused", async () => {
    const engine = createSyntheticEngine({ tokens: 8 });
    const first = await collectStream(engine.stream(userTurn("Hello there.", "chain-1")));
    expect(first.usage?.cachedInputTokens).toBe(0);
    const followUp: EngineRequest = {
      sessionKey: "chain-1",
      messages: [
        { role: "user", content: "Hello there." },
        { role: "assistant", content: first.text },
        { role: "user", content: "And then?" },
      ],
    };
    const second = await collectStream(engine.stream(followUp));
    expect(second.usage?.cachedInputTokens).toBeGreaterThan(0);
    expect(second.usage?.cachedInputTokens).toBeLessThan(second.usage?.inputTokens ?? 0);
    const otherScope = await collectStream(engine.stream({ ...followUp, cacheScope: "tenant-b" }));
    expect(otherScope.usage?.cachedInputTokens).toBe(0);
  });

  it("matches a request without its session's key by prefix, within its cache scope only", async () => {
    // As the embedded engine chooses a sequence and an upstream's prefix cache answers: a client
    // that resends the whole conversation without a key still finds it cached.
    const engine = createSyntheticEngine({ tokens: 8 });
    const opening = { role: "user" as const, content: "Hello there." };
    const first = await collectStream(
      engine.stream({ messages: [opening], cacheScope: "tenant-a" }),
    );
    expect(first.usage?.cachedInputTokens).toBe(0);
    const resent: EngineRequest = {
      cacheScope: "tenant-a",
      messages: [
        opening,
        { role: "assistant", content: first.text },
        { role: "user", content: "And?" },
      ],
    };
    const second = await collectStream(engine.stream(resent));
    expect(second.usage?.cachedInputTokens).toBeGreaterThan(0);
    const keyed = await collectStream(engine.stream({ ...resent, sessionKey: "new-key" }));
    // A key with nothing of its own continues the conversation it shares (all of it, here).
    expect(keyed.usage?.cachedInputTokens).toBeGreaterThan(second.usage?.cachedInputTokens ?? 0);
    const otherScope = await collectStream(engine.stream({ ...resent, cacheScope: "tenant-b" }));
    expect(otherScope.usage?.cachedInputTokens).toBe(0);
  });

  it("answers with the scripted tool call when the tool is offered", async () => {
    const engine = createSyntheticEngine({
      toolCall: { name: "read_file", arguments: '{"path":"src/index.ts"}' },
    });
    const result = await collectStream(
      engine.stream({
        messages: [{ role: "user", content: "Open the entry point." }],
        tools: [{ name: "read_file", parameters: { type: "object" } }],
      }),
    );
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/) as unknown,
        name: "read_file",
        arguments: '{"path":"src/index.ts"}',
      },
    ]);
  });

  it("fails with a typed error after failAfterTokens", async () => {
    const engine = createSyntheticEngine({ failAfterTokens: 3 });
    const result = await collectStream(engine.stream(userTurn("Go.")));
    expect(result.finishReason).toBe("error");
    expect(result.error?.code).toBe("upstream_error");
    expect(result.usage?.outputTokens).toBe(3);
  });

  it("uses a fixed text when given one and frees the stream when the consumer stops early", async () => {
    const engine = createSyntheticEngine({ text: "one two three", tokens: 6 });
    const result = await collectStream(engine.stream(userTurn("Count.")));
    expect(result.text).toBe("one two three one two three");
    for await (const event of engine.stream(userTurn("Count."))) {
      if (event.type === "text-delta") break;
    }
    expect(engine.activeStreams).toBe(0);
  });

  it("refuses requests after dispose", async () => {
    const engine = createSyntheticEngine();
    await engine.dispose();
    const result = await collectStream(engine.stream(userTurn("Hi.")));
    expect(result.error?.code).toBe("engine_disposed");
  });
});
