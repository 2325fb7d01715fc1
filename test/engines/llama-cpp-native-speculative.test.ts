// The native loop's verify step, driven through NativeSequence with drafts the test chooses: the
// tokens equal plain greedy decoding whatever the draft, a right draft takes fewer steps, max_tokens
// and the end of generation inside an accepted draft stop exactly there, an abort while a job waits
// for its draft ends it, and the KV cache afterwards holds exactly what JS mirrors.
import { existsSync } from "node:fs";
import type { Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSharedLlamaBackend } from "../../src/engines/llama-cpp/llama-backend.ts";
import { loadModel, type LoadedModel } from "../../src/engines/llama-cpp/load-model.ts";
import {
  defaultAddonPath,
  loadGenerationLoop,
  type AddonGenerationEnd,
} from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import type { NativeContext } from "../../src/engines/llama-cpp/native-loop/native-context.ts";
import type {
  NativeSequence,
  NativeSpeculation,
} from "../../src/engines/llama-cpp/native-loop/native-sequence.ts";
import { openNativeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { ensureTestModel } from "../support/test-model.ts";

const notBuilt = existsSync(defaultAddonPath)
  ? undefined
  : "the native generation loop is not built here (npm run build:native says why)";
if (notBuilt !== undefined) console.info(`llama-cpp-native-speculative: skipped, ${notBuilt}.`);

interface Run {
  tokens: Token[];
  steps: number;
  cachedTokens: number;
}

async function run(
  sequence: NativeSequence,
  prompt: Token[],
  maxTokens: number,
  extra: { speculation?: NativeSpeculation; signal?: AbortSignal } = {},
): Promise<Run> {
  const job = sequence.tokens(prompt, {
    maxTokens,
    sampling: { temperature: 0 },
    defaultTemperature: 0,
    ...extra,
  });
  const tokens: Token[] = [];
  for await (const token of job.tokens) tokens.push(token);
  return { tokens, steps: job.steps(), cachedTokens: job.cachedTokens() };
}

/**
 * Drafts what `expected` says follows the output so far (the prompt is `promptLength` tokens),
 * up to `length` tokens, with `corrupt` deciding which drafted positions get a wrong token.
 */
function oracle(
  promptLength: number,
  expected: readonly Token[],
  options: { length?: number; corrupt?: (offset: number) => boolean; after?: Token[] } = {},
): NativeSpeculation & { drafted: number } {
  const output: Token[] = [];
  const speculation = {
    drafted: 0,
    record: (sampled: Uint32Array) => {
      for (const token of sampled) output.push(token as Token);
    },
    nextDraft: (): Token[] => {
      const next = [...expected.slice(output.length), ...(options.after ?? [])].slice(
        0,
        options.length ?? 8,
      );
      speculation.drafted += next.length;
      return next.map((token, offset) =>
        options.corrupt?.(offset) === true ? ((((token + 1) % 90) + 33) as Token) : token,
      );
    },
  };
  expect(promptLength).toBeGreaterThan(0);
  return speculation;
}

describe.skipIf(notBuilt !== undefined)("native loop verify step", () => {
  let loaded: LoadedModel;
  let native: NativeContext;
  let main: NativeSequence;
  let reference: NativeSequence;
  let prompt: Token[];
  /** Plain greedy output after `prompt`, the reference every run is compared with. */
  let plain: Run;
  let endOfTurn: Token;

  beforeAll(async () => {
    const modelPath = await ensureTestModel({ endsTurns: true });
    // node-llama-cpp's backend first: the addon binds to the libllama it loaded.
    loaded = await loadModel(modelPath);
    const choice = await openNativeLoop("native", await getSharedLlamaBackend("auto"), {
      modelPath,
      contextSize: 512,
      sequences: 2,
      threads: 1,
      batchSize: 512,
      gpuLayers: 0,
    });
    if (choice.native === undefined) throw new Error(choice.reason);
    native = choice.native;
    main = (await native.pool.acquire("main", undefined)).sequence;
    reference = (await native.pool.acquire("reference", undefined)).sequence;
    prompt = loaded.model.tokenize(
      "<|im_start|>user\nWrite a haiku about compilers.<|im_end|>\n<|im_start|>assistant\n",
      true,
    );
    endOfTurn = loaded.model.tokenize("<|im_end|>", true)[0] as Token;
    reference.forget();
    plain = await run(reference, prompt, 48);
  });
  afterAll(async () => {
    native?.dispose();
    await loaded?.model.dispose();
  });

  /** What plain decoding continues with after `context`, on a sequence with an empty cache. */
  async function continuation(context: Token[], maxTokens: number): Promise<Token[]> {
    reference.forget();
    return (await run(reference, context, maxTokens)).tokens;
  }

  /** Continues `followUp` on the main sequence: it reuses `cached` tokens, and the cache really
   * holds them (the continuation equals one computed from an empty cache). */
  async function expectCacheHolds(followUp: Token[], cached: number, maxTokens: number) {
    const next = await run(main, followUp, maxTokens);
    expect(next.cachedTokens).toBe(cached);
    expect(next.tokens).toEqual(await continuation(followUp, maxTokens));
  }

  it("a right draft gives the plain tokens in fewer steps, and the cache holds them", async () => {
    expect(plain.tokens).toHaveLength(48);
    expect(plain.steps).toBe(48);
    main.forget();
    const speculation = oracle(prompt.length, plain.tokens, { length: 16 });
    const drafted = await run(main, prompt, 48, { speculation });
    expect(drafted.tokens).toEqual(plain.tokens);
    // The first draft goes with the prompt; each step then keeps 16 drafted tokens and the bonus.
    expect(drafted.steps).toBeLessThanOrEqual(3);
    // A follow-up reuses the prompt and every token but the last (never fed back), and the
    // cache really holds them: the continuation equals one computed from an empty cache.
    const followUp = [...prompt, ...drafted.tokens, ...loaded.model.tokenize(" more")];
    await expectCacheHolds(followUp, prompt.length + drafted.tokens.length - 1, 16);
  });

  it("wrong drafts, wholly or after a few right tokens, still give the plain tokens", async () => {
    for (const corrupt of [() => true, (offset: number) => offset >= 3]) {
      main.forget();
      const speculation = oracle(prompt.length, plain.tokens, { length: 8, corrupt });
      const drafted = await run(main, prompt, 48, { speculation });
      expect(drafted.tokens).toEqual(plain.tokens);
      expect(speculation.drafted).toBeGreaterThan(0);
      const followUp = [...prompt, ...drafted.tokens, ...loaded.model.tokenize(" again")];
      await expectCacheHolds(followUp, prompt.length + drafted.tokens.length - 1, 16);
    }
  });

  it("after a step without a draft the job decodes on, and a draft answered late still fits", async () => {
    main.forget();
    const right = oracle(prompt.length, plain.tokens, { length: 48 });
    let calls = 0;
    const speculation: NativeSpeculation = {
      record: (sampled) => right.record(sampled),
      // No draft with the prompt: the job does not wait, and the drafts that follow reach it a
      // few tokens late; the native thread skips what it generated since, if the draft foresaw it.
      nextDraft: () => (++calls === 1 ? [] : right.nextDraft()),
    };
    const drafted = await run(main, prompt, 48, { speculation });
    expect(drafted.tokens).toEqual(plain.tokens);
    expect(drafted.steps).toBeLessThanOrEqual(48);
  });

  it("max_tokens reached inside an accepted draft stops exactly there", async () => {
    main.forget();
    const speculation = oracle(prompt.length, plain.tokens, { length: 16 });
    const drafted = await run(main, prompt, 10, { speculation });
    expect(drafted.tokens).toEqual(plain.tokens.slice(0, 10));
    const followUp = [...prompt, ...drafted.tokens, ...loaded.model.tokenize(" on")];
    await expectCacheHolds(followUp, prompt.length + 9, 12);
  });

  it("the end of generation inside a draft ends the job there, the last token cached", async () => {
    const shortPrompt = loaded.model.tokenize(
      "<|im_start|>user\nCount to three.<|im_end|>\n<|im_start|>assistant\n",
      true,
    );
    reference.forget();
    const ending = await run(reference, shortPrompt, 300);
    // This prompt's greedy turn ends by itself (the endsTurns test model).
    expect(ending.tokens.length).toBeLessThan(300);
    main.forget();
    // Drafting past the end: the output's tail, <|im_end|>, then more.
    const speculation = oracle(shortPrompt.length, ending.tokens, {
      length: 16,
      after: [endOfTurn, ...plain.tokens.slice(0, 4)],
    });
    const drafted = await run(main, shortPrompt, 300, { speculation });
    expect(drafted.tokens).toEqual(ending.tokens);
    const followUp = [...shortPrompt, ...drafted.tokens, endOfTurn];
    // Unlike a length stop, the last token was evaluated (the end of turn was sampled after it).
    await expectCacheHolds(followUp, shortPrompt.length + drafted.tokens.length, 8);
  });

  it("an abort while the job waits for its draft ends it, and the cache mirror stays exact", async () => {
    main.forget();
    const controller = new AbortController();
    const right = oracle(prompt.length, plain.tokens, { length: 4 });
    let steps = 0;
    const speculation: NativeSpeculation = {
      record: (sampled) => right.record(sampled),
      nextDraft: () => {
        steps += 1;
        // The native job is waiting for this very answer: the abort must wake it.
        if (steps === 3) controller.abort();
        return right.nextDraft();
      },
    };
    const aborted = await run(main, prompt, 48, { speculation, signal: controller.signal });
    expect(aborted.tokens.length).toBeGreaterThan(0);
    expect(aborted.tokens.length).toBeLessThan(48);
    expect(aborted.tokens).toEqual(plain.tokens.slice(0, aborted.tokens.length));
    const followUp = [...prompt, ...aborted.tokens, ...loaded.model.tokenize(" after")];
    await expectCacheHolds(followUp, prompt.length + aborted.tokens.length - 1, 12);
  });

  it("a lookup that throws ends the stream with its error and leaves the sequence free", async () => {
    main.forget();
    const right = oracle(prompt.length, plain.tokens, { length: 4 });
    let calls = 0;
    const failing: NativeSpeculation = {
      record: (sampled) => right.record(sampled),
      nextDraft: () => {
        calls += 1;
        if (calls === 3) throw new Error("lookup failed");
        return right.nextDraft();
      },
    };
    await expect(run(main, prompt, 48, { speculation: failing })).rejects.toThrow("lookup failed");
    const after = await run(main, prompt, 8);
    expect(after.tokens).toEqual(plain.tokens.slice(0, 8));
  });

  it("a job waiting for its draft sits out while a plain job decodes, then goes on", async () => {
    // The raw addon: the first draft (a wrong token) goes with the prompt, so the job waits for
    // the next one after its first step; JS answers only once the plain job on another sequence
    // ended, and then with no draft, so the job decodes on without waiting.
    const loadedAddon = loadGenerationLoop();
    if (loadedAddon.addon === undefined) throw new Error(loadedAddon.reason);
    const context = new loadedAddon.addon.GenerationContext();
    await context.load({ ...native.options, sequences: 2 });
    try {
      const options = { tokens: Uint32Array.from(prompt), reuse: 0, maxTokens: 48 };
      const sampling = { temperature: 0, topK: 40, topP: 0.95, seed: 1 };
      let plainEnded = false;
      let speculativeTokensWhenPlainEnded = -1;
      let onPlainEnd: () => void = () => {};
      const plainDone = new Promise<void>((resolve) => (onPlainEnd = resolve));
      const plainTokens: Token[] = [];
      let onSpeculativeEnd: (end: AddonGenerationEnd) => void = () => {};
      const speculativeDone = new Promise<AddonGenerationEnd>((resolve) => {
        onSpeculativeEnd = resolve;
      });
      const speculativeTokens: Token[] = [];
      const speculative = context.generate(
        { ...options, ...sampling, sequence: 0, speculative: true, draft: Uint32Array.of(0) },
        (tokens, end) => {
          speculativeTokens.push(...(Array.from(tokens) as Token[]));
          const received = speculativeTokens.length;
          if (end !== undefined) onSpeculativeEnd(end);
          // No answer while the plain job runs: the job waits, and only the plain job steps.
          else if (plainEnded) speculative.draft(new Uint32Array(), received);
          else void plainDone.then(() => speculative.draft(new Uint32Array(), received));
        },
      );
      context.generate({ ...options, ...sampling, sequence: 1 }, (tokens, end) => {
        plainTokens.push(...(Array.from(tokens) as Token[]));
        if (end === undefined) return;
        plainEnded = true;
        speculativeTokensWhenPlainEnded = speculativeTokens.length;
        onPlainEnd();
      });
      await plainDone;
      expect(plainTokens).toEqual(plain.tokens);
      // The speculative job handed over its first token at most, then waited the plain job out.
      expect(speculativeTokensWhenPlainEnded).toBeGreaterThanOrEqual(0);
      expect(speculativeTokensWhenPlainEnded).toBeLessThanOrEqual(1);
      const end = await speculativeDone;
      expect(end.reason).toBe("length");
      expect(end.steps).toBe(48);
      expect(speculativeTokens).toEqual(plain.tokens);
    } finally {
      context.dispose();
    }
  });
});
