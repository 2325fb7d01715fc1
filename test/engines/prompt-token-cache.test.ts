// Tokenizing chat prompts through PromptTokenCache gives exactly the tokens of the model's own
// tokenizer, turn after turn, while a follow-up only tokenizes its new messages.
import { resolveChatWrapper, type ChatWrapper, type LlamaModel, type Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/engines/engine.ts";
import { toChatHistory } from "../../src/engines/llama-cpp/chat-history.ts";
import { loadModel } from "../../src/engines/llama-cpp/load-model.ts";
import { PromptTokenCache } from "../../src/engines/llama-cpp/prompt-token-cache.ts";
import { ensureTestModel } from "../support/test-model.ts";

/** Varied text: code, leading spaces, non-ASCII and astral characters, long enough to cache. */
function message(turn: number): string {
  const line = `  const value${turn} = compute("é—∑ ${turn}", 😀 ${turn * 7});\n`;
  return ` Turn ${turn}: please change this code.\n` + line.repeat(8 + turn);
}

describe("PromptTokenCache", () => {
  let model: LlamaModel;
  let chatWrapper: ChatWrapper;
  beforeAll(async () => {
    model = (await loadModel(await ensureTestModel(), { gpu: false })).model;
    chatWrapper = resolveChatWrapper(model);
  });
  afterAll(async () => {
    await model?.dispose();
  });

  const render = (messages: ChatMessage[]) =>
    chatWrapper.generateContextState({
      chatHistory: [...toChatHistory(messages), { type: "model", response: [] }],
    }).contextText;

  it("gives the model tokenizer's tokens on every turn and reuses earlier messages", () => {
    const cache = new PromptTokenCache(model.tokenizer);
    const messages: ChatMessage[] = [{ role: "system", content: message(0) }];
    let previousMisses = 0;
    for (let turn = 1; turn <= 6; turn += 1) {
      messages.push({ role: "user", content: message(turn) });
      const text = render(messages);
      const expected = text.tokenize(model.tokenizer);
      expect(text.tokenize(cache.tokenizer)).toEqual(expected);
      const { misses, hits } = cache.statistics;
      // Only the new user message is tokenized; every earlier long run comes from the cache.
      if (turn > 1) {
        expect(misses - previousMisses).toBe(1);
        expect(hits).toBeGreaterThanOrEqual(turn - 1);
      }
      previousMisses = misses;
      messages.push({ role: "assistant", content: `Done with turn ${turn}.` });
    }
  });

  it("keeps runs tokenized with and without special tokens apart", () => {
    const cache = new PromptTokenCache(model.tokenizer);
    const text = `${"<|im_start|>user\n".repeat(20)}${"x".repeat(300)}`;
    const plain = model.tokenizer(text, false);
    const special = model.tokenizer(text, true);
    expect(special).not.toEqual(plain);
    expect(cache.tokenizer(text, false)).toEqual(plain);
    expect(cache.tokenizer(text, true)).toEqual(special);
    expect(cache.tokenizer(text, false)).toEqual(plain);
    expect(cache.tokenizer(text, true, "trimLeadingSpace")).toEqual(
      model.tokenizer(text, true, "trimLeadingSpace"),
    );
  });

  it("stays within its token budget, least recently used out first, and stays exact", () => {
    const cache = new PromptTokenCache(model.tokenizer, 2_000);
    const runs = [1, 2, 3, 4, 5, 6].map((turn) => message(turn).repeat(2));
    const expected = new Map<string, Token[]>(runs.map((run) => [run, model.tokenizer(run)]));
    for (const run of runs) expect(cache.tokenizer(run)).toEqual(expected.get(run));
    expect(cache.statistics.cachedTokens).toBeLessThanOrEqual(2_000);
    expect(cache.statistics.cachedTokens).toBeGreaterThan(0);
    // The most recent run is still cached; the first one was evicted and is tokenized again.
    const before = cache.statistics;
    expect(cache.tokenizer(runs[5] ?? "")).toEqual(expected.get(runs[5] ?? ""));
    expect(cache.statistics.hits).toBe(before.hits + 1);
    expect(cache.tokenizer(runs[0] ?? "")).toEqual(expected.get(runs[0] ?? ""));
    expect(cache.statistics.misses).toBe(before.misses + 1);
  });
});
