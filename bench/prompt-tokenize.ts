// What a follow-up turn's prompt costs to tokenize, with and without PromptTokenCache, side by
// side in one run: a conversation grows by a ~6 KB user message and a short reply per turn, and
// each turn's whole prompt is rendered with the model's chat template and tokenized both ways.
// `npx tsx bench/prompt-tokenize.ts [model.gguf]` (default: the project's test model).
import { resolveChatWrapper } from "node-llama-cpp";
import type { ChatMessage } from "../src/engines/engine.ts";
import { toChatHistory } from "../src/engines/llama-cpp/chat-history.ts";
import { loadModel } from "../src/engines/llama-cpp/load-model.ts";
import { PromptTokenCache } from "../src/engines/llama-cpp/prompt-token-cache.ts";
import { ensureTestModel } from "../test/support/test-model.ts";
import { readCorpus, userMessages } from "./lib/conversation-corpus.ts";
import { formatTable } from "./lib/print-table.ts";
import type { Cell } from "./lib/scenario-result.ts";

const TURNS = 20;
const USER_BYTES = 6000;
const ROUNDS = 5;

const modelPath = process.argv[2] ?? (await ensureTestModel());
const { model } = await loadModel(modelPath, { gpu: false });
const chatWrapper = resolveChatWrapper(model);
const cache = new PromptTokenCache(model.tokenizer);
const users = userMessages(
  await readCorpus(USER_BYTES * TURNS + 1024),
  Array(TURNS).fill(USER_BYTES),
);
const messages: ChatMessage[] = [];
const rows: Cell[][] = [];

/** Best of ROUNDS, in ms. */
function best(run: () => number): { ms: number; tokens: number } {
  let ms = Number.POSITIVE_INFINITY;
  let tokens = 0;
  for (let round = 0; round < ROUNDS; round += 1) {
    const startedAt = performance.now();
    tokens = run();
    ms = Math.min(ms, performance.now() - startedAt);
  }
  return { ms, tokens };
}

for (const [turn, user] of users.entries()) {
  messages.push({ role: "user", content: user });
  const history = [...toChatHistory(messages), { type: "model" as const, response: [] }];
  const render = () => chatWrapper.generateContextState({ chatHistory: history }).contextText;
  const whole = best(() => render().tokenize(model.tokenizer).length);
  // The first tokenization of this turn's prompt is the one a follow-up pays: earlier turns
  // filled the cache with the older messages.
  const startedAt = performance.now();
  render().tokenize(cache.tokenizer);
  const followUpMs = performance.now() - startedAt;
  const renderOnly = best(() => render().values.length);
  rows.push([
    turn + 1,
    whole.tokens,
    whole.ms,
    followUpMs,
    renderOnly.ms,
    Math.round((whole.ms / followUpMs) * 10) / 10,
  ]);
  messages.push({ role: "assistant", content: `Reply ${turn + 1}: done.` });
}
await model.dispose();
console.log(
  formatTable({
    title: `${modelPath}: render + tokenize a turn's whole prompt, ms (best of ${ROUNDS}) vs with PromptTokenCache (the follow-up's first try)`,
    columns: ["turn", "prompt tokens", "whole", "with cache", "render alone", "× faster"],
    rows,
  }),
);
