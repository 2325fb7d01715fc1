// Tool turns on the native loop, on scripted models (real llama.cpp inference on weights that make
// greedy decoding follow a chosen script of token successors): text then `<tool_call>`, calls one
// after another, max_tokens inside a call, the abort mid-call, the cache a follow-up reuses, and a
// grammar the native loop refuses.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import { z } from "zod";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { EngineRequest, ToolDefinition } from "../../src/engines/engine.ts";
import type { TokenSuccessors } from "../../src/engines/llama-cpp/gguf/successor-weights.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { getSharedLlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { NativeContext } from "../../src/engines/llama-cpp/native-loop/native-context.ts";
import type { NativeTokens } from "../../src/engines/llama-cpp/native-loop/native-sequence.ts";
import { findNativeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { ensureTestModel } from "../support/test-model.ts";

const describeNative = existsSync(defaultAddonPath) ? describe : describe.skip;

const readFile = z.object({ path: z.string().max(12) });
const listFiles = z.object({ recursive: z.boolean() });
const tools: ToolDefinition[] = [
  { name: "read_file", description: "Read a file", parameters: z.toJSONSchema(readFile) },
  { name: "list_files", description: "List files", parameters: z.toJSONSchema(listFiles) },
];

/** Says "OK", then opens a call; after a call's end it says "O" (not another call). */
const textThenCall: TokenSuccessors = { "\n": "O", O: "K", K: "<tool_call>" };
/** Opens a call at once, and another after each call's end. */
const callsForever: TokenSuccessors = { "\n": "<tool_call>" };

const request = (extra: Partial<EngineRequest> = {}): EngineRequest => ({
  messages: [{ role: "user", content: "Look around." }],
  tools,
  sampling: { temperature: 0, maxOutputTokens: 200 },
  ...extra,
});

async function scriptedEngine(successors: TokenSuccessors): Promise<LlamaCppEngine> {
  const engine = await createLlamaCppEngine({
    modelPath: await ensureTestModel({ successors }),
    threads: 1,
    sequences: 2,
    contextSize: 2048,
    // The <tool_call> jobs the native loop runs where the chat format is not built (fallback).
    chatPath: "chat-wrapper",
  });
  if (engine.toolDecodeLoop !== "native") {
    await engine.dispose();
    throw new Error(`expected tool turns on the native loop: ${engine.toolLoopFallbackReason}`);
  }
  return engine;
}

function argumentsAreValid(call: { name: string; arguments: string }): boolean {
  const schema = call.name === "read_file" ? readFile : listFiles;
  return schema.safeParse(JSON.parse(call.arguments)).success;
}

describeNative("llama-cpp native loop tool calls", () => {
  let engine: LlamaCppEngine;
  let repeating: LlamaCppEngine;
  beforeAll(async () => {
    engine = await scriptedEngine(textThenCall);
    repeating = await scriptedEngine(callsForever);
  });
  afterAll(async () => {
    await engine?.dispose();
    await repeating?.dispose();
  });

  it("streams the text before <tool_call>, then one call whose arguments fit its tool", async () => {
    const result = await collectStream(engine.stream(request()));
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("OK");
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toHaveLength(1);
    const [call] = result.toolCalls;
    if (call === undefined) throw new Error("no call");
    expect(argumentsAreValid(call)).toBe(true);
    // Start, deltas, end in order; the deltas are the arguments' JSON as sampled.
    const callEvents = result.events.filter((event) => event.type.startsWith("tool-call"));
    expect(callEvents[0]).toMatchObject({ type: "tool-call-start", id: call.id, name: call.name });
    expect(callEvents.at(-1)).toMatchObject({ type: "tool-call-end", id: call.id });
    const streamed = callEvents
      .map((event) => (event.type === "tool-call-delta" ? event.argumentsDelta : ""))
      .join("");
    expect(callEvents.length).toBeGreaterThan(3);
    expect(streamed).toBe(call.arguments);
    const firstCallEvent = result.events.findIndex((event) => event.type === "tool-call-start");
    const lastText = result.events.findLastIndex((event) => event.type === "text-delta");
    expect(lastText).toBeLessThan(firstCallEvent);
    // "OK", <tool_call>, the call's tokens, and the one token that said no second call.
    expect(result.usage?.outputTokens).toBeGreaterThan(3 + call.arguments.length / 4);
  });

  it("calls one after another while the model opens calls, until max_tokens cuts one short", async () => {
    const result = await collectStream(
      repeating.stream(request({ sampling: { temperature: 0, maxOutputTokens: 180 } })),
    );
    expect(result.finishReason).toBe("length");
    expect(result.text).toBe("");
    expect(result.toolCalls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(result.toolCalls.map((call) => call.id)).size).toBe(result.toolCalls.length);
    expect(result.toolCalls.every(argumentsAreValid)).toBe(true);
    expect(result.usage?.outputTokens).toBe(180);
    // The call max_tokens cut short started but never ended.
    const starts = result.events.filter((event) => event.type === "tool-call-start").length;
    expect(starts).toBeGreaterThanOrEqual(result.toolCalls.length);
  });

  it("tool_choice required skips the text and calls at once; a named tool is the one called", async () => {
    const required = await collectStream(engine.stream(request({ toolChoice: "required" })));
    expect(required.text).toBe("");
    expect(required.toolCalls).toHaveLength(1);
    expect(required.finishReason).toBe("tool_calls");
    const named = await collectStream(
      engine.stream(request({ toolChoice: { name: "read_file" } })),
    );
    expect(named.toolCalls.map((call) => call.name)).toEqual(["read_file"]);
    expect(named.toolCalls.every(argumentsAreValid)).toBe(true);
    // Sampled, not greedy: the grammar still holds every token.
    for (const seed of [1, 2, 3]) {
      const sampled = await collectStream(
        engine.stream(
          request({
            toolChoice: "required",
            sampling: { temperature: 1.5, seed, maxOutputTokens: 200 },
          }),
        ),
      );
      expect(sampled.toolCalls).toHaveLength(1);
      expect(sampled.toolCalls.every(argumentsAreValid)).toBe(true);
    }
  });

  it("an abort inside a call ends the stream cancelled, with no end for that call", async () => {
    const controller = new AbortController();
    const events = [];
    for await (const event of repeating.stream(request(), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "tool-call-start") controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: "finish", reason: "cancelled" });
    expect(events.some((event) => event.type === "tool-call-end")).toBe(false);
    // The engine serves the next request.
    const next = await collectStream(repeating.stream(request()));
    expect(next.toolCalls.length).toBeGreaterThan(0);
  });

  it("a follow-up turn after a call reuses the first turn's prompt and text from the cache", async () => {
    const first = await collectStream(engine.stream(request({ sessionKey: "tools" })));
    const [call] = first.toolCalls;
    if (call === undefined) throw new Error("no call");
    const second = await collectStream(
      engine.stream(
        request({
          sessionKey: "tools",
          messages: [
            { role: "user", content: "Look around." },
            { role: "assistant", content: first.text, toolCalls: [call] },
            { role: "tool", toolCallId: call.id, name: call.name, content: "a.ts b.ts" },
          ],
        }),
      ),
    );
    expect(second.finishReason).toBe("tool_calls");
    // The first prompt, "OK" and the call's opening at least.
    expect(second.usage?.cachedInputTokens).toBeGreaterThan((first.usage?.inputTokens ?? 0) + 2);
  });

  it("native jobs: a grammar overrules the model and ends the job, a stop token ends it and is named, a bad grammar is a typed error", async () => {
    // Bound to node-llama-cpp's llama.cpp, as the engine binds it.
    const found = findNativeLoop("native", await getSharedLlamaBackend("auto"));
    if (found.addon === undefined) throw new Error(found.reason);
    const { addon } = found;
    const context = await NativeContext.create(addon, {
      modelPath: await ensureTestModel({ successors: textThenCall }),
      contextSize: 256,
      sequences: 1,
      threads: 1,
      batchSize: 64,
      gpuLayers: 0,
    });
    const collect = async (run: NativeTokens): Promise<number[]> => {
      const tokens: number[] = [];
      for await (const token of run.tokens) tokens.push(token);
      return tokens;
    };
    try {
      const lease = await context.pool.acquire(undefined, undefined, undefined);
      const { sequence } = lease;
      const options = { maxTokens: 8, sampling: { temperature: 0 }, defaultTemperature: 0 };
      const newline = [10 as Token];
      // The model would say "OK": the grammar allows only "xy", then only the end.
      const constrained = sequence.tokens(newline, {
        ...options,
        grammar: { text: 'root ::= "xy"', root: "root" },
      });
      expect(await collect(constrained)).toEqual([120, 121]);
      expect(constrained.stopToken()).toBeUndefined();
      // "K" is a stop token: the job ends after "O" and says which token ended it.
      const stopped = sequence.tokens(newline, { ...options, stopTokens: [75 as Token] });
      expect(await collect(stopped)).toEqual([79]);
      expect(stopped.stopToken()).toBe(75);
      expect(() =>
        sequence.tokens(newline, { ...options, grammar: { text: "root ::= (", root: "root" } }),
      ).toThrow(SparkError);
      // The refused job left the sequence free.
      expect(await collect(sequence.tokens(newline, { ...options, maxTokens: 2 }))).toEqual([
        79, 75,
      ]);
      lease.release();
    } finally {
      context.dispose();
    }
  });
});
