// The prefix cache's warm start runs inside the engine's open (it starts as the native context
// exists, while the chat wrapper resolves): when createLlamaCppEngine resolves, what the last
// process left off with is in a sequence and checked, so the first request waits for no copy or
// checksum; an entry that fails its checksum is removed with one notice by then, and the first
// request computes its prompt. Real engines on the tiny test model, one after another.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const SYSTEM = `You are a careful reviewer of TypeScript.\n${"Rule: keep answers short, exact and kind. ".repeat(30)}`;

const conversation = (question: string): ChatMessage[] => [
  { role: "system", content: SYSTEM },
  { role: "user", content: question },
];

/** What happened while the engine opened, in order, and the engine once it is handed out. */
interface Opening {
  engine: LlamaCppEngine;
  /** "warm start N" and "notice …" before "handed out", or after it. */
  events: string[];
}

async function open(modelPath: string, directory: string): Promise<Opening> {
  const events: string[] = [];
  const engine = await createLlamaCppEngine({
    modelPath,
    threads: 1,
    sequences: 1,
    contextSize: 4096,
    prefixCache: {
      directory,
      maxBytes: 1024 ** 3,
      onNotice: (line) => events.push(`notice ${line}`),
      onWarmStart: (tokens) => events.push(`warm start ${tokens}`),
    },
  });
  // Synchronously after the open resolved: a load still running has not reported yet.
  events.push("handed out");
  return { engine, events };
}

async function ask(engine: LlamaCppEngine, messages: ChatMessage[]) {
  const result = await collectStream(
    engine.stream({ messages, sampling: { temperature: 0, maxOutputTokens: 16 } }),
  );
  expect(result.error?.message).toBeUndefined();
  return { text: result.text, usage: result.usage! };
}

function entryFiles(directory: string): string[] {
  return (readdirSync(directory, { recursive: true }) as string[])
    .filter((name) => name.endsWith(".kv"))
    .map((name) => join(directory, name));
}

describe.skipIf(!existsSync(defaultAddonPath))("prefix cache load inside the engine's open", () => {
  let modelPath: string;
  let directory: string;

  /** A first process asks the question and ends, leaving its entries in a new cache folder. */
  async function firstProcessAnswers(question: ChatMessage[]) {
    directory = mkdtempSync(join(tmpdir(), "spark-open-load-"));
    const first = await open(modelPath, directory);
    const answer = await ask(first.engine, question);
    await first.engine.dispose();
    return answer;
  }
  beforeAll(async () => {
    modelPath = await ensureTestModel();
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("has the last conversation loaded and checked when the engine is handed out", async () => {
    const question = conversation("Is this loop correct?");
    const answer = await firstProcessAnswers(question);

    const second = await open(modelPath, directory);
    // The whole last turn (its prompt and answer), before the open resolved, with no notice.
    expect(second.events).toEqual([expect.stringMatching(/^warm start \d+$/), "handed out"]);
    expect(Number(second.events[0]!.slice("warm start ".length))).toBeGreaterThan(
      answer.usage.inputTokens,
    );
    // Nothing left on disk: the next turn reuses what the open loaded.
    rmSync(directory, { recursive: true, force: true });
    const next = await ask(second.engine, [
      ...question,
      { role: "assistant", content: answer.text },
      { role: "user", content: "And what does it return?" },
    ]);
    await second.engine.dispose();
    expect(next.usage.diskCachedInputTokens).toBeGreaterThan(answer.usage.inputTokens);
    expect(next.usage.inputTokens - next.usage.cachedInputTokens).toBeLessThan(80);
  });

  it("has removed an entry failing its checksum, with one notice, when the engine is handed out", async () => {
    const question = conversation("Is this loop correct?");
    const answer = await firstProcessAnswers(question);
    // Every entry of the same size, one state byte changed: only the checksum can tell.
    for (const path of entryFiles(directory)) {
      const bytes = await readFile(path);
      bytes[bytes.length - 100] = (bytes[bytes.length - 100]! + 1) % 256;
      await writeFile(path, bytes);
    }
    const loadedFirst = entryFiles(directory).length;

    const second = await open(modelPath, directory);
    expect(second.events).toHaveLength(3);
    expect(second.events[0]).toMatch(/^notice removed .*checksum/);
    expect(second.events.slice(1)).toEqual(["warm start 0", "handed out"]);
    expect(entryFiles(directory)).toHaveLength(loadedFirst - 1);
    const again = await ask(second.engine, question);
    await second.engine.dispose();
    expect(again.text).toBe(answer.text);
    // The other entry (the system prefix) is read by the request and fails too: computed whole.
    expect(again.usage.diskCachedInputTokens).toBeUndefined();
    expect(again.usage.cachedInputTokens).toBe(0);
  });
});
