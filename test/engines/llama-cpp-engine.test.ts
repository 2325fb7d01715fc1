// The embedded engine on the project's own tiny GGUF: the shared contract, session caching,
// eviction, prompt-lookup decoding and the typed errors for bad model files.
import { mkdtemp, open, writeFile, copyFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { ChatMessage, EngineRequest } from "../../src/engines/engine.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { runEngineContract } from "../support/run-engine-contract.ts";
import { ensureTestModel } from "../support/test-model.ts";

const THREADS = 1;

// The test model with FIM tokens (otherwise the same model), so the contract's completion case
// runs the raw-prompt path instead of being refused. The native loop's run is in
// llama-cpp-native-loop.test.ts.
runEngineContract({
  name: "llama-cpp (node-llama-cpp decode loop)",
  createEngine: async () =>
    createLlamaCppEngine({
      modelPath: await ensureTestModel({ fimTokens: true }),
      threads: THREADS,
      sequences: 4,
      contextSize: 2048,
      decodeLoop: "node-llama-cpp",
    }),
});

// Plain text, prompt lookup included, runs on the decode loop named (native falls back where the
// addon is not built); tool turns too (native where the model speaks <tool_call> JSON).
describe.each(["native", "node-llama-cpp"] as const)(
  "llama-cpp engine, %s decode loop",
  (decodeLoop) => {
    let engine: LlamaCppEngine;
    beforeAll(async () => {
      engine = await createLlamaCppEngine({
        modelPath: await ensureTestModel(),
        threads: THREADS,
        sequences: 2,
        contextSize: 2048,
        decodeLoop,
        // The decode loops compared on one prompt: node-llama-cpp's chat wrapper renders it for
        // both, since the chat format runs on the native loop only (the chat-format path is
        // covered in llama-cpp-chat-format.test.ts).
        chatPath: "chat-wrapper",
      });
    });
    afterAll(async () => {
      await engine?.dispose();
    });

    const turn = (
      messages: ChatMessage[],
      sessionKey?: string,
      extra: Partial<EngineRequest> = {},
    ): EngineRequest => ({
      messages,
      sampling: { temperature: 0, maxOutputTokens: 8 },
      ...(sessionKey === undefined ? {} : { sessionKey }),
      ...extra,
    });

    it("a follow-up turn with the same sessionKey evaluates only its new tokens", async () => {
      const first: ChatMessage[] = [
        { role: "system", content: "You write code." },
        {
          role: "user",
          content: "Write a function that adds two numbers, with a comment on each line.",
        },
      ];
      const one = await collectStream(engine.stream(turn(first, "session-a")));
      expect(one.error).toBeUndefined();
      const second: ChatMessage[] = [
        ...first,
        { role: "assistant", content: one.text },
        { role: "user", content: "Now subtract." },
      ];
      const two = await collectStream(engine.stream(turn(second, "session-a")));
      // Turn two's prompt is turn one's prompt, its output, then the new user message: only that
      // last part is computed (the final sampled token of turn one was never fed back, hence - 1).
      expect(two.usage?.cachedInputTokens).toBe(
        -1 + (one.usage?.inputTokens ?? 0) + (one.usage?.outputTokens ?? 0),
      );
      expect(two.usage?.inputTokens).toBeGreaterThan(two.usage?.cachedInputTokens ?? Infinity);
    });

    it("prefillOnly warms the session's cache without generating", async () => {
      const messages: ChatMessage[] = [
        { role: "user", content: "Warm this conversation up, please." },
      ];
      const warm = await collectStream(
        engine.stream(turn(messages, "warm-up", { prefillOnly: true })),
      );
      expect(warm.finishReason).toBe("stop");
      expect(warm.text).toBe("");
      expect(warm.usage?.outputTokens).toBe(0);
      const real = await collectStream(engine.stream(turn(messages, "warm-up")));
      // Everything but the one token every generation evaluates itself came from the warm cache.
      expect(real.usage?.cachedInputTokens).toBe((real.usage?.inputTokens ?? 0) - 1);
      expect(real.text.length).toBeGreaterThan(0);
    });

    it("evicts the least recently used session when every sequence is taken", async () => {
      const messages = (name: string): ChatMessage[] => [
        { role: "user", content: `Hello from ${name}, a long enough prompt.` },
      ];
      await collectStream(engine.stream(turn(messages("a"), "evict-a")));
      await collectStream(engine.stream(turn(messages("b"), "evict-b")));
      await collectStream(engine.stream(turn(messages("c"), "evict-c")));
      // Two sequences: c took a's; b is still cached, a is not.
      const againB = await collectStream(engine.stream(turn(messages("b"), "evict-b")));
      expect(againB.usage?.cachedInputTokens).toBe((againB.usage?.inputTokens ?? 0) - 1);
      const againA = await collectStream(engine.stream(turn(messages("a"), "evict-a")));
      expect(againA.usage?.cachedInputTokens).toBeLessThan((againA.usage?.inputTokens ?? 0) - 5);
    });

    it("prompt-lookup decoding drafts, verifies and matches plain decoding at temperature 0", async () => {
      const source = "function add(a, b) {\n  return a + b;\n}\n".repeat(4);
      const messages: ChatMessage[] = [{ role: "user", content: `Rename add to sum:\n${source}` }];
      const sampling = { temperature: 0, maxOutputTokens: 40 };
      const plain = await collectStream(engine.stream(turn(messages, undefined, { sampling })));
      // Random weights never copy the source: its drafts are rejected and erased from the cache.
      const rejected = await collectStream(
        engine.stream(turn(messages, undefined, { prediction: source, sampling })),
      );
      expect(rejected.text).toBe(plain.text);
      expect(rejected.usage?.rejectedPredictionTokens).toBeGreaterThan(0);
      expect(plain.usage?.acceptedPredictionTokens).toBeUndefined();
      // Predicting the output itself: drafts are accepted, and the text is still the same.
      const accepted = await collectStream(
        engine.stream(turn(messages, undefined, { prediction: plain.text, sampling })),
      );
      expect(accepted.text).toBe(plain.text);
      expect(accepted.usage?.acceptedPredictionTokens).toBeGreaterThan(10);
      expect(accepted.usage?.outputTokens).toBe(plain.usage?.outputTokens);
    });

    it("speculative = true looks up the prompt on requests without a prediction, same text", async () => {
      const speculative = await createLlamaCppEngine({
        modelPath: await ensureTestModel(),
        threads: THREADS,
        sequences: 1,
        contextSize: 2048,
        speculative: true,
        // Compared with `engine` above: the same prompt rendering.
        chatPath: "chat-wrapper",
      });
      try {
        const messages: ChatMessage[] = [
          { role: "user", content: "Repeat: let total = 0;\nlet total = 0;\nlet total = 0;" },
        ];
        const sampling = { temperature: 0, maxOutputTokens: 24 };
        // From an empty cache, as on the new engine: a prompt split differently between cache and
        // evaluation may round differently, and the noise model's near-tied logits then differ.
        const fresh = { sampling, cacheScope: "speculative-same-text" };
        const plain = await collectStream(engine.stream(turn(messages, undefined, fresh)));
        const looked = await collectStream(
          speculative.stream(turn(messages, undefined, { sampling })),
        );
        expect(looked.text).toBe(plain.text);
        expect(looked.usage?.acceptedPredictionTokens).toBeGreaterThanOrEqual(0);
        expect(plain.usage?.acceptedPredictionTokens).toBeUndefined();
      } finally {
        await speculative.dispose();
      }
    });

    it("an abort during a decode step ends the stream at once: no token after it, sequence free", async () => {
      const controller = new AbortController();
      const events: string[] = [];
      const stream = engine.stream(
        turn([{ role: "user", content: "Count from one to one hundred." }], undefined, {
          sampling: { temperature: 0, maxOutputTokens: 200 },
        }),
        { signal: controller.signal },
      );
      for await (const event of stream) {
        events.push(controller.signal.aborted ? `after:${event.type}` : event.type);
        // Abort from outside the loop body, while the engine is decoding the next token.
        if (event.type === "text-delta" && !controller.signal.aborted) {
          setImmediate(() => controller.abort());
        }
      }
      expect(events.filter((type) => type === "after:text-delta")).toEqual([]);
      expect(events.at(-1)).toBe("after:finish");
      // The sequence was released: the next request runs.
      const next = await collectStream(engine.stream(turn([{ role: "user", content: "Hi." }])));
      expect(next.finishReason).not.toBe("error");
    });

    it("reports a prompt that does not fit the context as context_length_exceeded", async () => {
      const result = await collectStream(
        engine.stream(turn([{ role: "user", content: "x ".repeat(5000) }])),
      );
      expect(result.finishReason).toBe("error");
      expect(result.error?.code).toBe("context_length_exceeded");
    });
  },
);

describe("llama-cpp engine model files", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "spark-model-files-"));
  });

  const loadError = async (modelPath: string): Promise<SparkError> => {
    try {
      const engine = await createLlamaCppEngine({
        modelPath,
        threads: THREADS,
        contextSize: 256,
        sequences: 1,
      });
      await engine.dispose();
    } catch (error) {
      expect(error).toBeInstanceOf(SparkError);
      return error as SparkError;
    }
    throw new Error("expected the model to fail to load");
  };

  it("a missing file is model_file_missing", async () => {
    const error = await loadError(join(folder, "nope.gguf"));
    expect(error.code).toBe("model_file_missing");
    expect(error.message).toContain("nope.gguf");
  });

  it("a file that is not GGUF is model_file_invalid", async () => {
    const path = join(folder, "not-a-model.gguf");
    await writeFile(path, "<html>404 Not Found</html>");
    const error = await loadError(path);
    expect(error.code).toBe("model_file_invalid");
    expect(error.message).toContain("not a GGUF");
  });

  it("a truncated GGUF is model_file_invalid", async () => {
    const path = join(folder, "truncated.gguf");
    await copyFile(await ensureTestModel(), path);
    const handle = await open(path, "r+");
    await handle.truncate(Math.floor((await stat(path)).size / 2));
    await handle.close();
    const error = await loadError(path);
    expect(error.code).toBe("model_file_invalid");
    expect(error.message).toContain("truncated or corrupt");
  });

  it("use after dispose is engine_disposed", async () => {
    const engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: THREADS,
      contextSize: 256,
      sequences: 1,
    });
    await engine.dispose();
    const result = await collectStream(
      engine.stream({ messages: [{ role: "user", content: "hi" }] }),
    );
    expect(result.error?.code).toBe("engine_disposed");
  });
});
