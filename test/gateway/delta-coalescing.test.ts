// Deltas per tick: tokens an engine yields in one burst leave as one delta event, numbered without
// gaps, and a token that arrives alone in its tick leaves alone (never held for a later one). The
// same holds for Chat Completions' streamed content chunks.
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { Engine } from "../../src/engines/engine.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.ts";
import { RawWsClient, type ServerEvent } from "./support/raw-ws-client.ts";

let harness: GatewayHarness | undefined;
let client: RawWsClient | undefined;

afterEach(async () => {
  client?.socket.terminate();
  await harness?.close();
  harness = undefined;
});

/** The unpaced synthetic engine with a pause before every token: each arrives in its own tick,
 * however late the event loop runs (the paced engine catches up in bursts when it runs late). */
function oneTokenPerTick(inner: Engine): Engine {
  return {
    kind: inner.kind,
    async *stream(request, options) {
      for await (const event of inner.stream(request, options)) {
        if (event.type === "text-delta") await sleep(2);
        yield event;
      }
    },
    listModels: () => inner.listModels(),
    dispose: () => inner.dispose(),
    [Symbol.asyncDispose]: () => inner.dispose(),
  };
}

async function runTurn(tokens: number, spaced: boolean): Promise<ServerEvent[]> {
  const engine = createSyntheticEngine({ tokens });
  harness = await startGatewayHarness(spaced ? oneTokenPerTick(engine) : engine);
  client = await RawWsClient.connect(harness.url);
  client.send({ type: "response.create", input: "Stream.", max_output_tokens: tokens });
  await client.waitFor((event) => event.type === "response.completed");
  return client.events;
}

const deltasOf = (events: ServerEvent[]): ServerEvent[] =>
  events.filter((event) => event.type === "response.output_text.delta");

describe("delta coalescing per tick", () => {
  it("sends a burst of tokens as fewer deltas, gapless sequence numbers, the same text", async () => {
    // Unpaced, the synthetic engine yields 32 tokens per turn of the event loop.
    const events = await runTurn(256, false);
    const deltas = deltasOf(events);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.length).toBeLessThan(256);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const done = events.find((event) => event.type === "response.output_text.done");
    expect(deltas.map((event) => event.delta).join("")).toBe(done?.text);
    expect((done?.text as string).trim().split(" ")).toHaveLength(256);
  });

  it("sends a token that arrives alone in its tick at once, as its own delta", async () => {
    const events = await runTurn(12, true);
    expect(deltasOf(events)).toHaveLength(12);
  });
});

/** A streamed chat completion's `data:` payloads, parsed, with each one's raw text. */
async function runChatCompletion(
  tokens: number,
  spaced: boolean,
): Promise<Array<{ raw: string; chunk: Record<string, unknown> }>> {
  const engine = createSyntheticEngine({ tokens });
  harness = await startGatewayHarness(spaced ? oneTokenPerTick(engine) : engine);
  const reply = await fetch(`${harness.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "synthetic",
      messages: [{ role: "user", content: "Stream." }],
      max_tokens: tokens,
      stream: true,
    }),
  });
  expect(reply.status).toBe(200);
  const lines = (await reply.text()).split("\n\n").filter((line) => line !== "");
  expect(lines.at(-1)).toBe("data: [DONE]");
  return lines.slice(0, -1).map((line) => {
    const raw = line.slice("data: ".length);
    return { raw, chunk: JSON.parse(raw) as Record<string, unknown> };
  });
}

type ChunkChoice = { delta: { content?: string }; finish_reason: string | null };
const contentOf = (chunk: Record<string, unknown>): string | undefined =>
  (chunk.choices as ChunkChoice[])[0]?.delta.content;

describe("chat completions content per tick", () => {
  it("sends a burst as fewer content chunks, byte for byte as JSON.stringify writes them", async () => {
    const chunks = await runChatCompletion(256, false);
    const content = chunks.filter(({ chunk }) => (contentOf(chunk) ?? "") !== "");
    expect(content.length).toBeGreaterThan(0);
    expect(content.length).toBeLessThan(256);
    const text = content.map(({ chunk }) => contentOf(chunk)).join("");
    expect(text.trim().split(" ")).toHaveLength(256);
    const first = chunks[0]?.chunk ?? {};
    for (const { raw, chunk } of content) {
      // The keys in the order OpenAI's chunks (and the non-merged path) have them.
      const expected = {
        id: first.id,
        object: "chat.completion.chunk",
        created: first.created,
        model: first.model,
        choices: [
          { index: 0, delta: { content: contentOf(chunk) }, finish_reason: null, logprobs: null },
        ],
      };
      expect(raw).toBe(JSON.stringify(expected));
    }
    expect((chunks.at(-1)?.chunk.choices as ChunkChoice[])[0]?.finish_reason).toBe("stop");
  });

  it("sends content that arrives alone in its tick at once, as its own chunk", async () => {
    const chunks = await runChatCompletion(12, true);
    expect(chunks.filter(({ chunk }) => (contentOf(chunk) ?? "") !== "")).toHaveLength(12);
  });
});
