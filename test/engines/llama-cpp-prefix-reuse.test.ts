// The embedded engine reuses a cached prefix for requests that name no session (a client resending
// the whole conversation over Chat Completions, or over Responses where every turn gets a fresh
// key): a follow-up goes to the sequence holding the conversation even after an unrelated one ran
// in between, on both decode loops, for chat and FIM; another tenant never gets a reuse.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const loops = existsSync(defaultAddonPath)
  ? (["native", "node-llama-cpp"] as const)
  : (["node-llama-cpp"] as const);

/** A few hundred tokens of a code-review conversation (the test model: about a token a byte). */
function longMessage(topic: string): string {
  return `Review this ${topic} module and list what to change.\n${`export function ${topic}Step(value: number): number {\n  return value * 2; // ${topic}\n}\n`.repeat(6)}`;
}

describe.each(loops)("llama-cpp prefix reuse without a session key, %s loop", (decodeLoop) => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel({ fimTokens: true }),
      threads: 1,
      sequences: 3,
      contextSize: 2048,
      // What a user gets: the native loop under the model's chat format, node-llama-cpp's loop
      // under its chat wrapper.
      decodeLoop,
    });
    expect(engine.decodeLoop, engine.decodeLoopFallbackReason).toBe(decodeLoop);
  });
  afterAll(async () => {
    await engine?.dispose();
  });

  const run = async (request: Partial<EngineRequest>): Promise<CollectedStream> => {
    const result = await collectStream(
      engine.stream({
        messages: [],
        sampling: { temperature: 0, maxOutputTokens: 6 },
        cacheScope: "tenant-a",
        ...request,
      }),
    );
    expect(result.error).toBeUndefined();
    return result;
  };
  const cached = (result: CollectedStream): number => result.usage?.cachedInputTokens ?? -1;
  const input = (result: CollectedStream): number => result.usage?.inputTokens ?? 0;

  // Chat Completions sends no key; the Responses gateway gives every unchained turn a fresh one.
  describe.each([
    ["no key", (_turn: number): string | undefined => undefined],
    ["a fresh key each turn", (turn: number): string | undefined => `tenant-a/resp_${turn}`],
  ] as const)("%s", (_name, keyFor) => {
    const sessionKey = (turn: number): Partial<EngineRequest> => {
      const key = keyFor(turn);
      return key === undefined ? {} : { sessionKey: key };
    };

    it("a follow-up extending an earlier prompt reuses it after an unrelated conversation ran", async () => {
      const topic = `${decodeLoop}-${keyFor(0) ?? "none"}`.replaceAll(/[^a-z]/g, "");
      const first: ChatMessage[] = [
        { role: "system", content: "You review TypeScript code." },
        { role: "user", content: longMessage(topic) },
      ];
      const one = await run({ messages: first, ...sessionKey(1) });
      // Its own system message: Qwen2.5's template gives a conversation without one its default
      // (~70 tokens), which every such conversation shares.
      const unrelated = await run({
        messages: [
          { role: "system", content: "Summarize modules." },
          { role: "user", content: longMessage(`other${topic}`) },
        ],
        ...sessionKey(2),
      });
      // It took another sequence: it shares no more than the chat template's opening with ours.
      expect(cached(unrelated)).toBeLessThan(0.1 * input(unrelated));
      let previous = one;
      let conversation = first;
      for (let turn = 3; turn <= 4; turn += 1) {
        conversation = [
          ...conversation,
          { role: "assistant", content: previous.text },
          { role: "user", content: `Turn ${turn}: now apply the first change.` },
        ];
        const next = await run({ messages: conversation, ...sessionKey(turn) });
        expect(cached(next)).toBeGreaterThanOrEqual(0.9 * input(previous));
        previous = next;
      }
    });
  });

  it("another tenant sending the same conversation never gets a reuse", async () => {
    const messages: ChatMessage[] = [{ role: "user", content: longMessage("tenantsecret") }];
    const owner = await run({ messages });
    const again = await run({ messages });
    expect(cached(again)).toBe(input(owner) - 1);
    const other = await run({ messages, cacheScope: "tenant-b" });
    expect(cached(other)).toBe(0);
    // Every sequence has now been used; the other tenant's follow-up may reuse only its own.
    const followUp = await run({
      messages: [
        ...messages,
        { role: "assistant", content: other.text },
        { role: "user", content: "Go on." },
      ],
      cacheScope: "tenant-b",
    });
    expect(cached(followUp)).toBeGreaterThanOrEqual(0.9 * input(other));
    const stranger = await run({ messages, cacheScope: "tenant-c" });
    expect(cached(stranger)).toBe(0);
  });

  it("a keystroke's FIM request without a document key reuses the previous keystroke's prefix", async () => {
    const prefix = `// ${decodeLoop}\n${longMessage("fim")}\nexport function add(a: number, b: number) {\n  return `;
    const suffix = "\n}\n";
    const one = await run({ completion: { prefix, suffix } });
    await run({ messages: [{ role: "user", content: longMessage(`chat${decodeLoop}`) }] });
    const two = await run({ completion: { prefix: `${prefix}a`, suffix } });
    // Everything before the cursor but the last token or two.
    expect(cached(two)).toBeGreaterThanOrEqual(0.9 * (input(one) - 8));
  });
});
