// The embedded engine's two decode loops: the same text from both (the shared contract on the
// native loop is in llama-cpp-native-loop-contract.test.ts), the per-session
// cache on the native sequences, prompt lookup on the native loop, and the fallback when the addon
// is absent or not wanted.
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { SpeculationReport } from "../../src/engines/llama-cpp/speculative-decode.ts";
import { describeNative, engineOptions, request } from "../support/native-loop-options.ts";
import { ensureTestModel } from "../support/test-model.ts";

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
