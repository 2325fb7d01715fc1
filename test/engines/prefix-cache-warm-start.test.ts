// The prefix cache's warm start: an engine opening on a cache folder loads what the last process
// left off with (its newest short turn, else its system prefix) into a sequence before any request
// arrives, so the first request finds it in memory, and counts it as read from disk; a long last
// conversation is not loaded whole; another tenant's request never reuses it. Real engines on the
// tiny test model, opened one after another in this process over the same folder.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, Usage } from "../../src/engines/engine.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { PREFIX_FOLDER } from "../../src/engines/llama-cpp/prefix-cache/prefix-cache.ts";
import { ensureTestModel } from "../support/test-model.ts";

const SYSTEM = `You are a careful reviewer of TypeScript.\n${"Rule: keep answers short, exact and kind. ".repeat(30)}`;

interface OpenedEngine {
  ask(messages: ChatMessage[], cacheScope?: string): Promise<{ text: string; usage: Usage }>;
  /** Tokens the engine loaded as it opened (0: none), once that load ended. */
  warmStart: Promise<number>;
  dispose(): Promise<void>;
}

async function openEngine(
  modelPath: string,
  directory: string,
  sequences: number,
): Promise<OpenedEngine> {
  let warmStarted: (tokens: number) => void = () => {};
  const warmStart = new Promise<number>((resolve) => (warmStarted = resolve));
  const notices: string[] = [];
  const engine = await createLlamaCppEngine({
    modelPath,
    threads: 1,
    sequences,
    contextSize: 4096,
    prefixCache: {
      directory,
      maxBytes: 1024 ** 3,
      onNotice: (line) => notices.push(line),
      onWarmStart: (tokens) => warmStarted(tokens),
    },
  });
  return {
    async ask(messages, cacheScope) {
      const result = await collectStream(
        engine.stream({
          messages,
          sampling: { temperature: 0, maxOutputTokens: 16 },
          ...(cacheScope === undefined ? {} : { cacheScope }),
        }),
      );
      expect(result.error?.message).toBeUndefined();
      expect(notices).toEqual([]);
      return { text: result.text, usage: result.usage! };
    },
    warmStart,
    dispose: () => engine.dispose(),
  };
}

const computed = (usage: Usage): number => usage.inputTokens - usage.cachedInputTokens;

/** A conversation's first turn: the shared system prompt, then the user's message. */
const conversation = (question: string): ChatMessage[] => [
  { role: "system", content: SYSTEM },
  { role: "user", content: question },
];

describe.skipIf(!existsSync(defaultAddonPath))("prefix cache warm start (native loop)", () => {
  let modelPath: string;
  let directory: string;
  beforeAll(async () => {
    modelPath = await ensureTestModel();
  });
  const newDirectory = (): string => (directory = mkdtempSync(join(tmpdir(), "spark-warm-")));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("loads the last conversation as it opens: the next turn finds it in memory with the files gone", async () => {
    newDirectory();
    const question = conversation("Is this loop correct?");
    const first = await openEngine(modelPath, directory, 1);
    const answer = await first.ask(question);
    await first.dispose();

    const second = await openEngine(modelPath, directory, 1);
    const loaded = await second.warmStart;
    expect(loaded).toBeGreaterThan(answer.usage.inputTokens);
    // Nothing left to read: whatever the next turn reuses was loaded as the engine opened.
    rmSync(join(directory, PREFIX_FOLDER), { recursive: true, force: true });
    const next = await second.ask([
      ...question,
      { role: "assistant", content: answer.text },
      { role: "user", content: "And what does it return?" },
    ]);
    await second.dispose();
    expect(next.usage.diskCachedInputTokens).toBeGreaterThan(answer.usage.inputTokens);
    expect(next.usage.diskCachedInputTokens).toBeLessThanOrEqual(loaded);
    expect(computed(next.usage)).toBeLessThan(80);
  });

  it("loads only the system prefix when the last conversation is long, and the resumed one from disk", async () => {
    newDirectory();
    const long = conversation(`Review this:\n${"const total = items.length; ".repeat(80)}`);
    const first = await openEngine(modelPath, directory, 1);
    const answer = await first.ask(long);
    await first.dispose();
    // More than twice the system prompt's tokens: not loaded whole as the next engine opens.
    expect(answer.usage.inputTokens).toBeGreaterThan(2 * SYSTEM.length + 200);

    const second = await openEngine(modelPath, directory, 1);
    const loaded = await second.warmStart;
    // The system prompt's entry (about one token a byte on the test model), not the whole turn.
    expect(loaded).toBeGreaterThan(SYSTEM.length * 0.9);
    expect(loaded).toBeLessThan(SYSTEM.length + 100);
    const resumed = await second.ask([
      ...long,
      { role: "assistant", content: answer.text },
      { role: "user", content: "Shorter?" },
    ]);
    await second.dispose();
    expect(resumed.usage.diskCachedInputTokens).toBeGreaterThan(answer.usage.inputTokens);
    expect(computed(resumed.usage)).toBeLessThan(80);
  });

  it("never lets another tenant's request reuse what it loaded", async () => {
    newDirectory();
    const question = conversation("Is this loop correct?");
    const first = await openEngine(modelPath, directory, 1);
    await first.ask(question);
    await first.dispose();

    const second = await openEngine(modelPath, directory, 1);
    expect(await second.warmStart).toBeGreaterThan(SYSTEM.length * 0.9);
    // The only sequence holds the default scope's conversation; a tenant's request clears it.
    const tenant = await second.ask(question, "tenant-b");
    await second.dispose();
    expect(tenant.usage.diskCachedInputTokens).toBeUndefined();
    expect(tenant.usage.cachedInputTokens).toBe(0);
  });
});
