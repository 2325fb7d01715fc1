// Lazy grammars on the native loop (llama-server's grammar_lazy and grammar_triggers): a chat
// format's tool-call grammar lets the model write free text until a trigger pattern matches or a
// trigger token is sampled, and constrains what follows; a grammar's prefill is what the prompt
// already holds of its text. Real llama.cpp inference on a scripted model that says "OK" after a
// line break.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Token } from "node-llama-cpp";
import type { TokenSuccessors } from "../../src/engines/llama-cpp/gguf/successor-weights.ts";
import { getSharedLlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { NativeContext } from "../../src/engines/llama-cpp/native-loop/native-context.ts";
import type {
  NativeGrammar,
  NativeTokens,
} from "../../src/engines/llama-cpp/native-loop/native-sequence.ts";
import { findNativeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { ensureTestModel } from "../support/test-model.ts";

const describeNative = existsSync(defaultAddonPath) ? describe : describe.skip;

/** "\n" → "O" → "K" → "!" and then nothing scripted (a grammar's first allowed token wins). */
const saysOk: TokenSuccessors = { "\n": "O", O: "K", K: "!" };
const byte = (text: string): Token => text.charCodeAt(0) as Token;
const [O, K, x, y, bang] = [byte("O"), byte("K"), byte("x"), byte("y"), byte("!")];
const newline = [10 as Token];

describeNative("native loop lazy grammars", () => {
  let context: NativeContext;
  beforeAll(async () => {
    const found = findNativeLoop("native", await getSharedLlamaBackend("auto"));
    if (found.addon === undefined) throw new Error(found.reason);
    context = await NativeContext.create(found.addon, {
      modelPath: await ensureTestModel({ successors: saysOk }),
      contextSize: 256,
      sequences: 1,
      threads: 1,
      batchSize: 64,
      gpuLayers: 0,
    });
  });
  afterAll(() => context?.dispose());

  async function sample(grammar: NativeGrammar | undefined): Promise<number[]> {
    const lease = await context.pool.acquire(undefined, undefined, undefined);
    try {
      const run: NativeTokens = lease.sequence.tokens(newline, {
        maxTokens: 6,
        sampling: { temperature: 0 },
        defaultTemperature: 0,
        grammar,
      });
      const tokens: number[] = [];
      for await (const token of run.tokens) tokens.push(token);
      return tokens;
    } finally {
      lease.release();
    }
  }

  it("samples free text until a trigger pattern matches, then the grammar takes over from its group", async () => {
    // Without a grammar the model says "OK!" and goes on with whatever ties first.
    expect((await sample(undefined)).slice(0, 3)).toEqual([O, K, bang]);
    // Lazy: "O" and "K" are free; once "K" is written the grammar (fed "K") allows only "xy".
    const lazy = await sample({
      text: 'root ::= "K" "xy"',
      root: "root",
      lazy: { patterns: ["[\\s\\S]*?(K)[\\s\\S]*"], tokens: [] },
    });
    expect(lazy).toEqual([O, K, x, y]);
  });

  it("a trigger token starts the grammar at that token", async () => {
    const lazy = await sample({
      text: 'root ::= "K" "y"',
      root: "root",
      lazy: { patterns: [], tokens: [K] },
    });
    expect(lazy).toEqual([O, K, y]);
  });

  it("a lazy grammar whose trigger never comes leaves the text alone", async () => {
    const free = await sample({
      text: 'root ::= "Z"',
      root: "root",
      lazy: { patterns: ["[\\s\\S]*?(Z)[\\s\\S]*"], tokens: [] },
    });
    expect(free.slice(0, 3)).toEqual([O, K, bang]);
  });

  it("a prefilled grammar starts past what the prompt holds of it", async () => {
    // Not lazy: the grammar has read "O" (the prompt's), so it allows only "xy" from the start.
    expect(await sample({ text: 'root ::= "O" "xy"', root: "root", prefill: [O] })).toEqual([x, y]);
  });

  it("a prefill the grammar refuses fails that job alone, and the sequence serves the next", async () => {
    // llama.cpp throws from accepting a token the grammar refuses; on the JS thread that is the
    // job's error, not the process's.
    await expect(sample({ text: 'root ::= "O" "xy"', root: "root", prefill: [K] })).rejects.toThrow(
      /refused its prefill/,
    );
    expect(await sample({ text: 'root ::= "O" "xy"', root: "root", prefill: [O] })).toEqual([x, y]);
  });
});
