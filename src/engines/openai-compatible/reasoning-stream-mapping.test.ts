// An upstream's reasoning, from SSE bytes as llama-server (Chat Completions `reasoning_content`)
// and vLLM serving gpt-oss (Responses `reasoning_text` events) stream it, through the same parser
// and decoders the engine runs: reasoning deltas, never answer text.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../engine.ts";
import { ChatStreamDecoder } from "./chat-stream-decoder.ts";
import { ResponsesStreamDecoder } from "./responses-stream-decoder.ts";
import { SseParser } from "./sse-parser.ts";

async function sseData(fixture: string): Promise<string[]> {
  const bytes = await readFile(new URL(`./fixtures/${fixture}`, import.meta.url));
  const parser = new SseParser();
  // Uneven pieces, as a socket delivers them.
  const events = [];
  for (let offset = 0; offset < bytes.length; offset += 97)
    events.push(...parser.push(bytes.subarray(offset, offset + 97)));
  events.push(...parser.end());
  return events.map((event) => event.data);
}

function joined(events: EngineEvent[], type: "text-delta" | "reasoning-delta"): string {
  return events.map((event) => (event.type === type ? event.text : "")).join("");
}

describe("an upstream's reasoning", () => {
  it("maps llama-server's reasoning_content deltas to reasoning deltas", async () => {
    const decoder = new ChatStreamDecoder({ baseUrl: "http://127.0.0.1:8080/v1", model: "qwen3" });
    const events = (await sseData("llama-server-reasoning-content.sse")).flatMap((data) =>
      decoder.decode(data),
    );
    expect(joined(events, "reasoning-delta")).toBe("Okay, the user asks 2+2.");
    expect(joined(events, "text-delta")).toBe("4");
    expect(events.findIndex((event) => event.type === "text-delta")).toBe(9);
    expect(decoder.end().finish).toEqual({ reason: "stop" });
  });

  it("maps vLLM's response.reasoning_text.delta events to reasoning deltas", async () => {
    const decoder = new ResponsesStreamDecoder({
      baseUrl: "http://127.0.0.1:8000/v1",
      model: "openai/gpt-oss-20b",
    });
    const events = (await sseData("vllm-responses-reasoning.sse")).flatMap((data) =>
      decoder.decode(data),
    );
    expect(joined(events, "reasoning-delta")).toBe("We need to answer 2+2.");
    expect(joined(events, "text-delta")).toBe("4");
    expect(decoder.end().finish).toEqual({ reason: "stop" });
  });
});
