import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { ChatStreamDecoder } from "./chat-stream-decoder.ts";

const context = { baseUrl: "http://127.0.0.1:8000/v1", model: "m" };

function chunk(delta: unknown, finishReason: string | null = null, extra: object = {}): string {
  return JSON.stringify({
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  });
}

function decodeAll(datas: string[]): {
  events: EngineEvent[];
  decoder: ChatStreamDecoder;
  finish: ReturnType<ChatStreamDecoder["end"]>["finish"];
} {
  const decoder = new ChatStreamDecoder(context);
  const events = datas.flatMap((data) => decoder.decode(data));
  const ended = decoder.end();
  return { events: [...events, ...ended.events], decoder, finish: ended.finish };
}

describe("ChatStreamDecoder", () => {
  it("turns content deltas into text deltas and skips empty ones", () => {
    const { events, finish } = decodeAll([
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Hi" }),
      chunk({ content: null }),
      chunk({ content: " there" }),
      chunk({}, "stop"),
      "[DONE]",
    ]);
    expect(events).toEqual([
      { type: "text-delta", text: "Hi" },
      { type: "text-delta", text: " there" },
    ]);
    expect(finish).toEqual({ reason: "stop" });
  });

  it("buffers arguments until a tool call's name is known", () => {
    const { events } = decodeAll([
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { arguments: '{"x"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "edit", arguments: ":1}" } }] }),
      chunk({}, "tool_calls"),
    ]);
    expect(events).toEqual([
      { type: "tool-call-start", id: "call_a", name: "edit" },
      { type: "tool-call-delta", id: "call_a", argumentsDelta: '{"x":1}' },
      { type: "tool-call-end", id: "call_a", name: "edit", arguments: '{"x":1}' },
    ]);
  });

  it("ends open tool calls when the stream ends after [DONE] without a finish_reason", () => {
    const { events, finish } = decodeAll([
      chunk({
        tool_calls: [
          { index: 0, id: "call_b", type: "function", function: { name: "ls", arguments: "{}" } },
        ],
      }),
      "[DONE]",
    ]);
    expect(events.at(-1)).toEqual({
      type: "tool-call-end",
      id: "call_b",
      name: "ls",
      arguments: "{}",
    });
    expect(finish).toEqual({ reason: "tool_calls" });
  });

  it("treats a new id at a reused index as a new call", () => {
    const { events } = decodeAll([
      chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "a", arguments: "{}" } }] }),
      chunk({ tool_calls: [{ index: 0, id: "call_2", function: { name: "b", arguments: "{}" } }] }),
      chunk({}, "tool_calls"),
    ]);
    expect(
      events
        .filter((event) => event.type === "tool-call-end")
        .map((event) => event.type === "tool-call-end" && event.name),
    ).toEqual(["a", "b"]);
  });

  it("reads the legacy function_call delta as a tool call", () => {
    const { events, finish } = decodeAll([
      chunk({ function_call: { name: "search", arguments: '{"q":' } }),
      chunk({ function_call: { arguments: '"x"}' } }),
      chunk({}, "function_call"),
    ]);
    expect(events.at(-1)).toMatchObject({
      type: "tool-call-end",
      name: "search",
      arguments: '{"q":"x"}',
    });
    expect(finish.reason).toBe("tool_calls");
  });

  it("reports 'tool_calls' when a server says 'stop' after calling tools", () => {
    const { finish } = decodeAll([
      chunk(
        { tool_calls: [{ index: 0, id: "c", function: { name: "ls", arguments: "{}" } }] },
        "stop",
      ),
      "[DONE]",
    ]);
    expect(finish.reason).toBe("tool_calls");
  });

  it("merges usage across chunks: llama-server timings, then a usage-only chunk", () => {
    const { decoder } = decodeAll([
      chunk({}, "stop", { timings: { prompt_n: 4, cache_n: 96, predicted_n: 3 } }),
      JSON.stringify({ choices: [], usage: { prompt_tokens: 100, completion_tokens: 3 } }),
      "[DONE]",
    ]);
    expect(decoder.usage).toEqual({ inputTokens: 100, cachedInputTokens: 96, outputTokens: 3 });
  });

  it("fails on invalid JSON with a protocol_error", () => {
    const decoder = new ChatStreamDecoder(context);
    expect(() => decoder.decode('{"choices":[{"delta":{"content":"Hi')).toThrowError(
      expect.objectContaining({ code: "protocol_error" }) as Error,
    );
  });

  it("maps an error object in the stream", () => {
    const decoder = new ChatStreamDecoder(context);
    let caught: unknown;
    try {
      decoder.decode(JSON.stringify({ error: { message: "overloaded", code: 503 } }));
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SparkError);
    expect((caught as SparkError).code).toBe("upstream_error");
    expect((caught as SparkError).retryable).toBe(true);
  });

  it("says the stream was cut when it ends with neither finish_reason nor [DONE]", () => {
    const { finish } = decodeAll([chunk({ content: "Hi" })]);
    expect(finish.reason).toBe("error");
    expect(finish.error?.code).toBe("protocol_error");
    expect(finish.error?.message).toContain("upstream closed the stream before it finished");
  });

  it("counts deltas for usage estimates", () => {
    const { decoder } = decodeAll([
      chunk({ content: "abc" }),
      chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "{}" } }] }),
      "[DONE]",
    ]);
    expect(decoder.deltaCount).toBe(2);
    expect(decoder.characterCount).toBe(5);
  });

  it("ignores choices other than the first", () => {
    const decoder = new ChatStreamDecoder(context);
    const events = decoder.decode(
      JSON.stringify({
        choices: [
          { index: 1, delta: { content: "other" } },
          { index: 0, delta: { content: "mine" } },
        ],
      }),
    );
    expect(events).toEqual([{ type: "text-delta", text: "mine" }]);
  });
});
