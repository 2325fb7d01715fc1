// What a keystroke costs in each FIM prompt layout on the embedded engine (the test model with
// Qwen2.5-Coder's FIM tokens, both decode loops). The document's next request reuses its cache up
// to the cursor in SPM order and with the line split (the default: the cursor line's typed text
// after <|fim_middle|>), so only what was typed is evaluated; in PSM order split at the cursor the
// suffix after the prefix is evaluated again.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { CompletionPrompt } from "../../src/engines/engine.ts";
import type { FimOrder, FimSplit } from "../../src/engines/llama-cpp/completion-prompt.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "../support/test-model.ts";

const loops = existsSync(defaultAddonPath)
  ? (["native", "node-llama-cpp"] as const)
  : (["node-llama-cpp"] as const);

const prefix = "export function add(a: number, b: number): number {\n  const sum = ";
const suffix = ";\n  return sum;\n}\n\nexport function sub(a: number, b: number): number {\n";
const extra = [{ filename: "src/zero.ts", text: "export const zero = 0;\n" }];

type Layout = "psm-cursor" | "spm-cursor" | "default";
const layouts: Record<Layout, { fimOrder?: FimOrder; fimSplit?: FimSplit }> = {
  "psm-cursor": { fimOrder: "psm", fimSplit: "cursor" },
  "spm-cursor": { fimOrder: "spm", fimSplit: "cursor" },
  // PSM with the line split.
  default: {},
};

describe.each(loops)("FIM prompt layout on the %s loop", (decodeLoop) => {
  const engines = new Map<Layout, LlamaCppEngine>();
  beforeAll(async () => {
    for (const [layout, options] of Object.entries(layouts)) {
      const engine = await createLlamaCppEngine({
        modelPath: await ensureTestModel({ fimTokens: true }),
        threads: 1,
        sequences: 2,
        contextSize: 2048,
        decodeLoop,
        ...options,
      });
      expect(engine.decodeLoop, engine.decodeLoopFallbackReason).toBe(decodeLoop);
      engines.set(layout as Layout, engine);
    }
  });
  afterAll(async () => {
    for (const engine of engines.values()) await engine.dispose();
  });

  const engineFor = (layout: Layout): LlamaCppEngine => {
    const engine = engines.get(layout);
    if (engine === undefined) throw new Error(`No ${layout} engine.`);
    return engine;
  };
  const complete = async (
    layout: Layout,
    completion: CompletionPrompt,
  ): Promise<CollectedStream> => {
    const result = await collectStream(
      engineFor(layout).stream({
        messages: [],
        completion,
        sampling: { temperature: 0, maxOutputTokens: 4 },
        sessionKey: "fim:src/add.ts",
      }),
    );
    expect(result.error).toBeUndefined();
    return result;
  };
  /** Two keystrokes: the document as opened, then one character typed at the cursor. */
  const typeOneKey = async (layout: Layout): Promise<CollectedStream> => {
    const document = { suffix, extra, filename: "src/add.ts" };
    await complete(layout, { ...document, prefix });
    return complete(layout, { ...document, prefix: `${prefix}x` });
  };
  const newTokens = (result: CollectedStream): number =>
    (result.usage?.inputTokens ?? 0) - (result.usage?.cachedInputTokens ?? 0);

  it("SPM, cursor split: the second keystroke reuses the cache up to the cursor", async () => {
    const second = await typeOneKey("spm-cursor");
    // The typed "x" and <|fim_middle|>: everything before the cursor was cached.
    expect(newTokens(second)).toBe(2);
  });

  it("PSM, cursor split: the second keystroke evaluates the suffix again", async () => {
    const second = await typeOneKey("psm-cursor");
    // "x", <|fim_suffix|>, the suffix and <|fim_middle|>.
    expect(newTokens(second)).toBe(engineFor("psm-cursor").countTokens(suffix) + 3);
  });

  it("PSM, line split (the default): the second keystroke evaluates only the typed token", async () => {
    const second = await typeOneKey("default");
    expect(newTokens(second)).toBe(1);
  });

  it("every layout evaluates the same number of prompt tokens for a first request", async () => {
    const counts = new Set<number>();
    for (const layout of Object.keys(layouts) as Layout[]) {
      const result = await complete(layout, { prefix: "let total = ", suffix: ";\n" });
      counts.add(result.usage?.inputTokens ?? 0);
    }
    expect(counts.size).toBe(1);
  });
});
