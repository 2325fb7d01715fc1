// The Responses WebSocket transport against a loopback upstream that replays OpenAI's recorded
// frames: the handshake, chains (warm-up, tool call, follow-up with only the new input),
// recovery from previous_response_not_found and from the connection limit, the lifetime,
// rate limits kept for the router, drops, refused handshakes, cancellation and eviction.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import {
  createOpenAICompatibleEngine,
  type OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
} from "../../src/engines/openai-compatible/index.ts";
import { ResponsesWsUpstream } from "./responses-ws-upstream.ts";

const promptly = 5_000;
let upstream: ResponsesWsUpstream;
let engine: OpenAICompatibleEngine;

function engineWith(
  overrides: Partial<OpenAICompatibleEngineOptions> = {},
): OpenAICompatibleEngine {
  return createOpenAICompatibleEngine({
    preset: "custom",
    api: "responses",
    transport: "websocket",
    baseUrl: upstream.baseUrl,
    model: "gpt-5.3-codex-spark",
    apiKey: "sk-test-key",
    warmUp: false,
    timeouts: { connectMs: 2_000, firstByteMs: 2_000, idleMs: 2_000 },
    ...overrides,
  });
}

beforeEach(async () => {
  upstream = await ResponsesWsUpstream.start();
  engine = engineWith();
});
afterEach(async () => {
  await engine.dispose();
  await upstream.close();
});

function conversation(): ChatMessage[] {
  return [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Say hello." },
  ];
}

function turn(messages: ChatMessage[], extra: Partial<EngineRequest> = {}) {
  return collectStream(engine.stream({ messages, sessionKey: "session-1", ...extra }));
}

/** Replaces the engine with one built with `overrides`. */
async function reopenWith(overrides: Partial<OpenAICompatibleEngineOptions>): Promise<void> {
  await engine.dispose();
  engine = engineWith(overrides);
}

/** The conversation after one answered turn, with the user's next message ("Again.") added. */
async function afterFirstTurn(): Promise<ChatMessage[]> {
  const messages = conversation();
  const first = await turn(messages);
  messages.push({ role: "assistant", content: first.text }, { role: "user", content: "Again." });
  return messages;
}

/** The `response.create` frames the upstream received: where each went and what it carried. */
function creates() {
  return upstream.creates().map(({ connection, frame }) => ({
    connection,
    previous: frame.previous_response_id,
    input: frame.input,
  }));
}

describe("Responses WebSocket transport", { timeout: promptly }, () => {
  it("opens the socket with OpenAI's beta header and the key as a bearer", async () => {
    const result = await turn(conversation());
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("Hello from the socket.");
    expect(result.usage).toEqual({ inputTokens: 42, cachedInputTokens: 0, outputTokens: 5 });
    expect(upstream.handshakes[0]).toMatchObject({
      "openai-beta": "responses_websockets=2026-02-06",
      authorization: "Bearer sk-test-key",
    });
    const [create] = upstream.creates();
    expect(create?.frame).toMatchObject({
      type: "response.create",
      model: "gpt-5.3-codex-spark",
      store: false,
      instructions: "You are terse.",
      prompt_cache_key: "session-1",
    });
    expect(create?.frame).not.toHaveProperty("stream");
  });

  it("warms a socket up at creation, which the first request takes even mid-handshake", async () => {
    await reopenWith({ warmUp: true });
    expect((await turn(conversation())).text).toBe("Hello from the socket.");
    expect(engine.webSocketStats).toEqual({ opened: 1, open: 1, busy: 0 });
    expect(upstream.handshakes).toHaveLength(1);
  });

  it("sends only the new input after a warm-up, a tool call and its output", async () => {
    const messages = conversation();
    expect((await turn(messages, { prefillOnly: true })).text).toBe("");
    upstream.respondInTurn([{ fixture: "tool-call.jsonl" }]);
    const call = await turn(messages);
    expect(call.finishReason).toBe("tool_calls");
    messages.push({ role: "assistant", content: "", toolCalls: call.toolCalls });
    messages.push({ role: "tool", toolCallId: "call_7Qx2", content: "export const a = 1;" });
    const answer = await turn(messages);
    expect(answer.text).toBe("Hello from the socket.");
    messages.push({ role: "assistant", content: answer.text });
    messages.push({ role: "user", content: "Thanks." });
    expect((await turn(messages)).error).toBeUndefined();

    expect(creates()).toEqual([
      { connection: 1, previous: undefined, input: [{ role: "user", content: "Say hello." }] },
      { connection: 1, previous: "resp_ws_1", input: [] },
      {
        connection: 1,
        previous: "resp_ws_2",
        input: [
          { type: "function_call_output", call_id: "call_7Qx2", output: "export const a = 1;" },
        ],
      },
      { connection: 1, previous: "resp_ws_3", input: [{ role: "user", content: "Thanks." }] },
    ]);
    expect(upstream.creates()[0]?.frame).toMatchObject({ generate: false });
  });

  it("resends the whole conversation once when the upstream lost the chain", async () => {
    const messages = await afterFirstTurn();
    upstream.respondInTurn([{ fixture: "previous-response-not-found.jsonl" }]);
    const second = await turn(messages);
    expect(second.error).toBeUndefined();
    expect(second.text).toBe("Hello from the socket.");
    expect(creates().map(({ previous, input }) => [previous, (input as unknown[]).length])).toEqual(
      [
        [undefined, 1],
        ["resp_ws_1", 1],
        [undefined, 3],
      ],
    );
  });

  it("moves to a new socket when the upstream reaches its connection limit", async () => {
    const messages = await afterFirstTurn();
    upstream.respondInTurn([{ fixture: "connection-limit-reached.jsonl", closeWith: 1000 }]);
    const second = await turn(messages);
    expect(second.error).toBeUndefined();
    expect(second.text).toBe("Hello from the socket.");
    // The new socket holds no chain: the conversation goes whole.
    expect(creates().map(({ connection, previous }) => [connection, previous])).toEqual([
      [1, undefined],
      [1, "resp_ws_1"],
      [2, undefined],
    ]);
    expect(engine.webSocketStats).toEqual({ opened: 2, open: 1, busy: 0 });
  });

  it("replaces a socket older than its lifetime before the next response", async () => {
    await reopenWith({ webSocket: { lifetimeMs: 20 } });
    const messages = await afterFirstTurn();
    await sleep(30);
    expect((await turn(messages)).error).toBeUndefined();
    expect(creates().map(({ connection, previous }) => [connection, previous])).toEqual([
      [1, undefined],
      [2, undefined],
    ]);
    expect(engine.webSocketStats?.opened).toBe(2);
  });

  it("lets a response outlive its socket's lifetime while the session moves to a new socket", async () => {
    await reopenWith({ webSocket: { lifetimeMs: 20 } });
    upstream.respondInTurn([{ fixture: "text.jsonl", frameDelayMs: 15 }]);
    const slow = turn(conversation());
    await sleep(40);
    const next = await turn(conversation());
    expect(next.text).toBe("Hello from the socket.");
    const finished = await slow;
    expect(finished.error).toBeUndefined();
    expect(finished.text).toBe("Hello from the socket.");
    expect(creates().map(({ connection }) => connection)).toEqual([1, 2]);
  });

  it("maps a 429 error frame to rate_limited with its retry-after, keeping the socket", async () => {
    upstream.respondInTurn([{ fixture: "rate-limited.jsonl" }]);
    const limited = await turn(conversation());
    expect(limited.finishReason).toBe("error");
    expect(limited.error).toMatchObject({
      code: "rate_limited",
      retryable: true,
      retryAfterMs: 2_000,
    });
    expect((await turn(conversation())).text).toBe("Hello from the socket.");
    expect(engine.webSocketStats?.opened).toBe(1);
  });

  it("ends with upstream_error when the response fails", async () => {
    upstream.respondInTurn([{ fixture: "response-failed.jsonl" }]);
    const failed = await turn(conversation());
    expect(failed.error).toMatchObject({ code: "upstream_error", retryable: true });
    expect(failed.error?.message).toContain("The server had an error");
  });

  it("reports a drop mid-stream as a retryable network error after the partial text", async () => {
    upstream.respondInTurn([{ fixture: "text.jsonl", dropAfterFrames: 6 }]);
    const dropped = await turn(conversation());
    expect(dropped.text).toBe("Hello from");
    expect(dropped.error).toMatchObject({ code: "network_error", retryable: true });
    expect(creates()).toHaveLength(1); // output was streamed: never sent again
    expect((await turn(conversation())).text).toBe("Hello from the socket.");
  });

  it("times out a silent or stalled upstream and replaces its socket", async () => {
    await reopenWith({ timeouts: { connectMs: 300, firstByteMs: 300, idleMs: 300 } });
    upstream.respondInTurn([
      { fixture: "text.jsonl", stallAfterFrames: 0 },
      { fixture: "text.jsonl", stallAfterFrames: 6 },
    ]);
    const silent = await turn(conversation());
    expect(silent.error).toMatchObject({ code: "upstream_timeout", retryable: true });
    expect(silent.error?.message).toContain("sent no response within 300 ms");
    const stalled = await turn(conversation());
    expect(stalled.text).toBe("Hello from");
    expect(stalled.error?.message).toContain("stalled: nothing arrived for 300 ms");
    expect((await turn(conversation())).text).toBe("Hello from the socket.");
    expect(creates().map(({ connection }) => connection)).toEqual([1, 2, 3]);
  });

  it("retries once on a new socket when it drops before any output", async () => {
    upstream.respondInTurn([{ fixture: "text.jsonl", dropAfterFrames: 0 }]);
    const result = await turn(conversation());
    expect(result.error).toBeUndefined();
    expect(result.text).toBe("Hello from the socket.");
    expect(creates().map(({ connection }) => connection)).toEqual([1, 2]);
  });

  it("maps refused handshakes like HTTP errors, keeping retry-after", async () => {
    upstream.refusals.push({
      status: 401,
      body: JSON.stringify({
        error: { message: "Incorrect API key provided.", code: "invalid_api_key" },
      }),
    });
    const refused = await turn(conversation());
    expect(refused.error).toMatchObject({ code: "authentication_failed", retryable: false });
    upstream.refusals.push({
      status: 429,
      headers: { "retry-after": "3" },
      body: JSON.stringify({ error: { message: "Too many connections." } }),
    });
    const limited = await turn(conversation());
    expect(limited.error).toMatchObject({ code: "rate_limited", retryAfterMs: 3_000 });
  });

  it("cancels on abort and reuses the socket once the cancelled response ended", async () => {
    upstream.respondInTurn([{ fixture: "text.jsonl", frameDelayMs: 15 }]);
    const controller = new AbortController();
    let text = "";
    for await (const event of engine.stream(
      { messages: conversation(), sessionKey: "session-1" },
      { signal: controller.signal },
    )) {
      if (event.type === "text-delta") {
        text += event.text;
        controller.abort();
      }
      if (event.type === "finish") expect(event.reason).toBe("cancelled");
    }
    expect(text).toBe("Hello");
    // The next turn waits for nothing: the session's socket is still reading off the cancelled
    // response, so it runs on another socket.
    const next = await turn(conversation());
    expect(next.text).toBe("Hello from the socket.");
    // Once the cancelled response ended, the session's own socket serves it again, clean.
    for (let waited = 0; engine.webSocketStats?.busy !== 0 && waited < 200; waited += 1)
      await sleep(10);
    expect((await turn(conversation())).text).toBe("Hello from the socket.");
    const frames = upstream.received.map(({ connection, frame }) => [connection, frame.type]);
    expect(frames).toEqual([
      [1, "response.create"],
      [1, "response.cancel"],
      [2, "response.create"],
      [1, "response.create"],
    ]);
    expect(upstream.received[1]?.frame).toEqual({
      type: "response.cancel",
      response_id: "resp_ws_1",
    });
  });

  it("closes the least recently used session's socket past max sessions", async () => {
    await reopenWith({ webSocket: { maxSessions: 1 } });
    expect((await turn(conversation(), { sessionKey: "a" })).error).toBeUndefined();
    expect((await turn(conversation(), { sessionKey: "b" })).error).toBeUndefined();
    expect(engine.webSocketStats).toEqual({ opened: 2, open: 1, busy: 0 });
    for (let waited = 0; upstream.openConnections > 1 && waited < 100; waited += 1) await sleep(10);
    expect(upstream.openConnections).toBe(1);
  });
});
