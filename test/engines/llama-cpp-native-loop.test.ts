// The embedded engine's two decode loops: the shared contract on Spark's native loop (the one on
// node-llama-cpp's loop is in llama-cpp-engine.test.ts), the same text from both, the per-session
// cache on the native sequences, prompt lookup on the native loop, and the fallback when the addon
// is absent or not wanted.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineRequest, SamplingOptions } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
  type LlamaCppEngineOptions,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import type { SpeculationReport } from "../../src/engines/llama-cpp/speculative-decode.ts";
import { runEngineContract } from "../support/run-engine-contract.ts";
import { ensureTestModel } from "../support/test-model.ts";

// The addon is built at npm install; where it could not be (no compiler), say so rather than
// pass on node-llama-cpp's loop in its name.
const notBuilt = existsSync(defaultAddonPath)
  ? undefined
  : "the native generation loop is not built here (npm run build:native says why)";
const describeNative = notBuilt === undefined ? describe : describe.skip;

const engineOptions = async (
  extra: Partial<LlamaCppEngineOptions> = {},
): Promise<LlamaCppEngineOptions> => ({
  modelPath: await ensureTestModel(),
  threads: 1,
  sequences: 2,
  contextSize: 2048,
  // The loops compared on node-llama-cpp's chat-wrapper prompt (and its <tool_call> jobs), the one
  // rendering both loops run (the chat format is the native loop's alone); the chat-format path
  // is tested in llama-cpp-chat-format*.test.ts.
  chatPath: "chat-wrapper",
  ...extra,
});

runEngineContract({
  name: "llama-cpp (native decode loop)",
  createEngine: async () => {
    const engine = await createLlamaCppEngine(
      await engineOptions({
        modelPath: await ensureTestModel({ fimTokens: true }),
        sequences: 4,
        decodeLoop: "native",
      }),
    );
    if (notBuilt === undefined && engine.decodeLoop !== "native") {
      throw new Error(`expected the native loop: ${engine.decodeLoopFallbackReason}`);
    }
    return engine;
  },
  ...(notBuilt === undefined
    ? {}
    : {
        skip: {
          "streams text": notBuilt,
          "honours max tokens": notBuilt,
          "honours stop": notBuilt,
          "abort keeps partial text": notBuilt,
          "concurrent requests do not mix": notBuilt,
          "bad request is a typed error": notBuilt,
          "usage and timings are present": notBuilt,
          "a completion request streams or is refused": notBuilt,
          "structured output follows the schema or is refused": notBuilt,
        },
      }),
});

// The same contract on the default chat path: llama.cpp's own chat format (the test model's
// template, its grammar and parser) on the native loop.
runEngineContract({
  name: "llama-cpp (native decode loop, chat format)",
  createEngine: async () => {
    const options = await engineOptions({
      modelPath: await ensureTestModel({ fimTokens: true }),
      sequences: 4,
      decodeLoop: "native",
    });
    // No chatPath: what a user gets.
    delete options.chatPath;
    const engine = await createLlamaCppEngine(options);
    if (notBuilt === undefined && engine.chatPath !== "chat-format") {
      throw new Error(`expected the chat-format path, got ${engine.chatPath}`);
    }
    return engine;
  },
  skip: {
    ...(notBuilt === undefined
      ? {}
      : {
          "streams text": notBuilt,
          "honours max tokens": notBuilt,
          "honours stop": notBuilt,
          "abort keeps partial text": notBuilt,
          "concurrent requests do not mix": notBuilt,
          "bad request is a typed error": notBuilt,
          "usage and timings are present": notBuilt,
          "a completion request streams or is refused": notBuilt,
          "structured output follows the schema or is refused": notBuilt,
          "a partial answer is continued or refused": notBuilt,
          "a required tool call streams and parses": notBuilt,
        }),
  },
  // Qwen's format lets a turn hold several calls (`(tool-call space)+`, parallel_tool_calls), and
  // greedy noise never ranks <|im_end|> first after one, so its calls would run to max tokens: the
  // required call runs on a model scripted to write one call in Qwen2.5's format and end its turn.
  toolCallEngine: async () => {
    const options = await engineOptions({
      modelPath: await ensureTestModel({
        turns: [
          {
            tokens: [
              "\n",
              "<tool_call>",
              '\n{"name": "get_weather", ',
              '"arguments": {"city": "Paris"',
              // A forced call's compact grammar (chat-format-prompt.ts) allows a space at most
              // between the object and </tool_call>, where Qwen2.5's format writes a newline.
              "}}",
              "</tool_call>",
              "<|im_end|>",
            ],
          },
        ],
      }),
      sequences: 1,
      decodeLoop: "native",
    });
    delete options.chatPath;
    return createLlamaCppEngine(options);
  },
});

const request = (
  content: string,
  sampling: SamplingOptions,
  extra: Partial<EngineRequest> = {},
): EngineRequest => ({ messages: [{ role: "user", content }], sampling, ...extra });

describeNative("llama-cpp native decode loop", () => {
  let native: LlamaCppEngine;
  let fallback: LlamaCppEngine;
  beforeAll(async () => {
    // Sampling on llama.cpp's backend, as on a GPU ("auto" keeps the CPU backend on the host).
    native = await createLlamaCppEngine(
      await engineOptions({ decodeLoop: "native", deviceSampling: "on" }),
    );
    fallback = await createLlamaCppEngine(await engineOptions({ decodeLoop: "node-llama-cpp" }));
  });
  afterAll(async () => {
    await native?.dispose();
    await fallback?.dispose();
  });

  it("holds the weights once: node-llama-cpp keeps only the vocabulary when the native loop runs everything", () => {
    expect(native.decodeLoop).toBe("native");
    expect(native.toolDecodeLoop).toBe("native");
    expect(native.nodeLlamaCppHolds).toBe("vocabulary");
    // The trained context and the configured one, read without node-llama-cpp's weights.
    expect(native.contextSize).toBe(2048);
    expect(fallback.nodeLlamaCppHolds).toBe("weights and context");
    expect(fallback.toolDecodeLoop).toBe("node-llama-cpp");
  });

  it("samples the same text as node-llama-cpp's loop: greedy (on the device and the host), and seeded (small and large seeds) at temperature 0.7 on the host", async () => {
    expect(native.decodeLoop).toBe("native");
    expect(fallback.decodeLoop).toBe("node-llama-cpp");
    // The seed's text is node-llama-cpp's when sampled on the host; the backend's dist sums in
    // f32 and may pick a neighbouring token where a draw falls within rounding of a boundary.
    const hostSampled = await createLlamaCppEngine(
      await engineOptions({ decodeLoop: "native", deviceSampling: "off" }),
    );
    try {
      for (const [engine, sampling] of [
        [native, { temperature: 0, maxOutputTokens: 48 }],
        [hostSampled, { temperature: 0, maxOutputTokens: 48 }],
        [hostSampled, { temperature: 0.7, seed: 42, maxOutputTokens: 48 }],
        // Above 2^24: a seed passed through a float would lose its low bits.
        [hostSampled, { temperature: 0.7, seed: 3_000_000_123, maxOutputTokens: 48 }],
      ] as const) {
        const prompt = request("Write a haiku about compilers.", sampling);
        const fromNative = await collectStream(engine.stream(prompt));
        const fromNodeLlamaCpp = await collectStream(fallback.stream(prompt));
        expect(fromNative.timings?.sampling).toBe(engine === native ? "device" : "host");
        expect(fromNative.usage?.outputTokens).toBe(48);
        expect(fromNative.text).toBe(fromNodeLlamaCpp.text);
      }
    } finally {
      await hostSampled.dispose();
    }
  });

  it("samples the same text as node-llama-cpp's loop where tied logits leave top-k to llama.cpp's sort", async () => {
    // A scripted model: every unscripted token has logit 0 exactly, so the top 40 hold ties and
    // the native loop's own top-k selection hands over to llama.cpp's (the noise model above
    // takes the native selection).
    const modelPath = await ensureTestModel({ successors: { "\n": "O", O: "K" } });
    const [tiedNative, tiedFallback] = await Promise.all([
      // On the host: the tie handling under test is the host's top-k.
      createLlamaCppEngine(
        await engineOptions({ modelPath, decodeLoop: "native", deviceSampling: "off" }),
      ),
      createLlamaCppEngine(await engineOptions({ modelPath, decodeLoop: "node-llama-cpp" })),
    ]);
    try {
      for (const seed of [1, 2, 3]) {
        const prompt = request("Say something.", { temperature: 1.5, seed, maxOutputTokens: 24 });
        const fromNative = await collectStream(tiedNative.stream(prompt));
        expect(fromNative.text).toBe((await collectStream(tiedFallback.stream(prompt))).text);
      }
    } finally {
      await Promise.all([tiedNative.dispose(), tiedFallback.dispose()]);
    }
  });

  it("a session's follow-up turn reuses its cache", async () => {
    const sampling = { temperature: 0, maxOutputTokens: 8 };
    const first: ChatMessage[] = [{ role: "user", content: "Describe a linked list briefly." }];
    const one = await collectStream(
      native.stream({ ...request("", sampling), messages: first, sessionKey: "s" }),
    );
    // Another session's turn in between takes the other sequence and leaves this cache alone.
    const other = await collectStream(
      native.stream({ ...request("Read a file.", sampling), sessionKey: "other" }),
    );
    expect(other.finishReason).not.toBe("error");
    const second: ChatMessage[] = [
      ...first,
      { role: "assistant", content: one.text },
      { role: "user", content: "Now a tree." },
    ];
    const two = await collectStream(
      native.stream({ ...request("", sampling), messages: second, sessionKey: "s" }),
    );
    expect(two.usage?.cachedInputTokens).toBe(
      -1 + (one.usage?.inputTokens ?? 0) + (one.usage?.outputTokens ?? 0),
    );
  });

  it("prompt lookup decodes on the native loop: the plain text, counted usage, a cache the next turn reuses", async () => {
    const reports: SpeculationReport[] = [];
    const engine = await createLlamaCppEngine(
      await engineOptions({
        decodeLoop: "native",
        onSpeculation: (report) => reports.push(report),
      }),
    );
    try {
      const sampling = { temperature: 0, maxOutputTokens: 40 };
      const first: ChatMessage[] = [
        { role: "user", content: "Rename add to sum:\nfunction add(a, b) { return a + b; }" },
      ];
      const plain = await collectStream(
        fallback.stream(request("", sampling, { messages: first })),
      );
      // Predicting the output itself: nearly every token is drafted and accepted.
      const predicted = await collectStream(
        engine.stream(
          request("", sampling, { messages: first, prediction: plain.text, sessionKey: "p" }),
        ),
      );
      expect(predicted.text).toBe(plain.text);
      expect(predicted.usage?.outputTokens).toBe(40);
      // Drafts of 4, 8 and 16 tokens, each with its bonus token; the last draft, cut short by
      // max tokens, is never scored (the request ends before the next lookup would score it).
      expect(predicted.usage?.acceptedPredictionTokens).toBe(28);
      expect(predicted.usage?.rejectedPredictionTokens).toBe(0);
      expect(reports).toHaveLength(1);
      expect(reports[0]?.statistics.acceptedTokens).toBe(predicted.usage?.acceptedPredictionTokens);
      // The history the report carries is the prompt and the output.
      expect(reports[0]?.history).toHaveLength(
        (predicted.usage?.inputTokens ?? 0) + (predicted.usage?.outputTokens ?? 0),
      );
      // The native sequence holds the turn: the follow-up reuses all of it but the last token.
      const second: ChatMessage[] = [
        ...first,
        { role: "assistant", content: predicted.text },
        { role: "user", content: "Now rename b to c." },
      ];
      const next = await collectStream(
        engine.stream(request("", sampling, { messages: second, sessionKey: "p" })),
      );
      expect(next.usage?.cachedInputTokens).toBe(
        -1 + (predicted.usage?.inputTokens ?? 0) + (predicted.usage?.outputTokens ?? 0),
      );
      const reference = await collectStream(
        fallback.stream(request("", sampling, { messages: second })),
      );
      expect(next.text).toBe(reference.text);
    } finally {
      await engine.dispose();
    }
  });

  it("a speculative stream and a plain one at once both complete with their own text", async () => {
    // A scripted model with two disjoint cycles, so each prompt's last byte picks its own text
    // and greedy decoding has no near-ties: the noise model's text can drift when two sequences
    // share a batch (llama.cpp's batched matrix products sum in another order), which would hide
    // a real mix-up behind a numerical one.
    const modelPath = await ensureTestModel({
      successors: { a: "b", b: "c", c: "d", d: "a", "1": "2", "2": "3", "3": "4", "4": "1" },
    });
    const engine = await createLlamaCppEngine(
      await engineOptions({ modelPath, decodeLoop: "native" }),
    );
    try {
      expect(engine.decodeLoop).toBe("native");
      const sampling = { temperature: 0, maxOutputTokens: 48 };
      const letters = (extra: Partial<EngineRequest> = {}): EngineRequest => ({
        ...request("", sampling, extra),
        messages: [],
        completion: { prefix: "Letters: xa" },
      });
      const digits: EngineRequest = {
        ...request("", sampling),
        messages: [],
        completion: { prefix: "Digits: 1" },
      };
      const lettersAlone = await collectStream(engine.stream(letters()));
      const digitsAlone = await collectStream(engine.stream(digits));
      expect(lettersAlone.text).toBe("bcda".repeat(12));
      expect(digitsAlone.text).toBe("2341".repeat(12));
      const [lettersTogether, digitsTogether] = await Promise.all([
        collectStream(engine.stream(letters({ prediction: "bcda".repeat(8) }))),
        collectStream(engine.stream(digits)),
      ]);
      expect(lettersTogether.text).toBe(lettersAlone.text);
      expect(lettersTogether.usage?.acceptedPredictionTokens).toBeGreaterThan(0);
      expect(digitsTogether.text).toBe(digitsAlone.text);
      expect(digitsTogether.usage?.acceptedPredictionTokens).toBeUndefined();
    } finally {
      await engine.dispose();
    }
  });

  it("another tenant's request on a sequence starts from an empty cache", async () => {
    const sampling = { temperature: 0, maxOutputTokens: 4 };
    const prompt = "The same prompt for two tenants, long enough to be worth caching.";
    await collectStream(
      native.stream(request(prompt, sampling, { sessionKey: "t", cacheScope: "a" })),
    );
    await collectStream(
      native.stream(request(prompt, sampling, { sessionKey: "t2", cacheScope: "a" })),
    );
    const other = await collectStream(
      native.stream(request(prompt, sampling, { sessionKey: "t", cacheScope: "b" })),
    );
    expect(other.usage?.cachedInputTokens).toBe(0);
  });

  it("disposing while a stream decodes ends it as engine_disposed", async () => {
    const engine = await createLlamaCppEngine(await engineOptions({ decodeLoop: "native" }));
    const stream = engine.stream(request("Tell a long story.", { maxOutputTokens: 1500 }));
    const events = [];
    for await (const event of stream) {
      events.push(event);
      if (events.length === 3) await engine.dispose();
    }
    expect(events.at(-1)).toMatchObject({ type: "finish", reason: "error" });
    expect(events.find((event) => event.type === "finish")).toMatchObject({
      error: { code: "engine_disposed" },
    });
  });
});

describe("llama-cpp decode loop fallback", () => {
  it("without the addon, plain text runs on node-llama-cpp's loop and says why", async () => {
    const engine = await createLlamaCppEngine(
      await engineOptions({ nativeLoopAddonPath: join(tmpdir(), "spark-no-such-addon.node") }),
    );
    try {
      expect(engine.decodeLoop).toBe("node-llama-cpp");
      expect(engine.decodeLoopFallbackReason).toContain("not built");
      expect(engine.nodeLlamaCppHolds).toBe("weights and context");
      const result = await collectStream(
        engine.stream(request("Say hello.", { temperature: 0, maxOutputTokens: 6 })),
      );
      expect(result.error).toBeUndefined();
      expect(result.usage?.outputTokens).toBe(6);
    } finally {
      await engine.dispose();
    }
  });

  it("SPARK_DECODE_LOOP chooses the loop when the engine options do not", async () => {
    const saved = process.env.SPARK_DECODE_LOOP;
    try {
      process.env.SPARK_DECODE_LOOP = "node-llama-cpp";
      const engine = await createLlamaCppEngine(await engineOptions({ sequences: 1 }));
      expect(engine.decodeLoop).toBe("node-llama-cpp");
      expect(engine.decodeLoopFallbackReason).toContain("requested");
      await engine.dispose();
      process.env.SPARK_DECODE_LOOP = "fast";
      await expect(
        createLlamaCppEngine(await engineOptions({ sequences: 1 })),
      ).rejects.toMatchObject({
        code: "invalid_config",
      });
    } finally {
      if (saved === undefined) delete process.env.SPARK_DECODE_LOOP;
      else process.env.SPARK_DECODE_LOOP = saved;
    }
  });
});
