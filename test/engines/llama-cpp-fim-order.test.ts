// What a keystroke costs in each FIM order on the embedded engine (the test model with Qwen2.5-
// Coder's FIM tokens, both decode loops): in SPM order the document's next request reuses its cache
// up to the cursor, so only the typed character and <|fim_middle|> are evaluated; in PSM order the
// suffix after the prefix is evaluated again.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream, type CollectedStream } from "../../src/engines/collect-stream.ts";
import type { CompletionPrompt } from "../../src/engines/engine.ts";
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

describe.each(loops)("FIM order on the %s loop", (decodeLoop) => {
  const engines = new Map<string, LlamaCppEngine>();
  beforeAll(async () => {
    for (const fimOrder of ["psm", "spm"] as const) {
      const engine = await createLlamaCppEngine({
        modelPath: await ensureTestModel({ fimTokens: true }),
        threads: 1,
        sequences: 2,
        contextSize: 2048,
        decodeLoop,
        fimOrder,
      });
      expect(engine.decodeLoop, engine.decodeLoopFallbackReason).toBe(decodeLoop);
      engines.set(fimOrder, engine);
    }
  });
  afterAll(async () => {
    for (const engine of engines.values()) await engine.dispose();
  });

  const complete = async (
    order: string,
    completion: CompletionPrompt,
  ): Promise<CollectedStream> => {
    const engine = engines.get(order);
    if (engine === undefined) throw new Error(`No ${order} engine.`);
    const result = await collectStream(
      engine.stream({
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
  const typeOneKey = async (order: string): Promise<CollectedStream> => {
    const document = { suffix, extra, filename: "src/add.ts" };
    await complete(order, { ...document, prefix });
    return complete(order, { ...document, prefix: `${prefix}x` });
  };
  const newTokens = (result: CollectedStream): number =>
    (result.usage?.inputTokens ?? 0) - (result.usage?.cachedInputTokens ?? 0);

  it("SPM: the second keystroke reuses the cache up to the cursor", async () => {
    const second = await typeOneKey("spm");
    // The typed "x" and <|fim_middle|>: everything before the cursor was cached.
    expect(newTokens(second)).toBe(2);
  });

  it("PSM: the second keystroke evaluates the suffix again", async () => {
    const engine = engines.get("psm");
    const second = await typeOneKey("psm");
    // "x", <|fim_suffix|>, the suffix and <|fim_middle|>.
    expect(newTokens(second)).toBe((engine?.countTokens(suffix) ?? 0) + 3);
  });

  it("both orders evaluate the same number of prompt tokens for the first request", async () => {
    const first = async (order: string): Promise<number> => {
      const result = await complete(order, { prefix: "let total = ", suffix: ";\n" });
      return result.usage?.inputTokens ?? 0;
    };
    expect(await first("spm")).toBe(await first("psm"));
  });
});
