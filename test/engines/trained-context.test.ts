// A test model written with its own trained context length, and the embedded engine's answer
// when the configured context_size is larger than what the model was trained for.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectStream } from "../../src/engines/collect-stream.ts";
import {
  createLlamaCppEngine,
  type LlamaCppEngine,
} from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";

describe("trained context length", () => {
  let engine: LlamaCppEngine;
  beforeAll(async () => {
    engine = await createLlamaCppEngine({
      modelPath: await ensureTestModel({ contextLength: 512 }),
      threads: 1,
      sequences: 1,
      contextSize: 4096,
    });
  });
  afterAll(async () => engine.dispose());

  it("caps the context to the model's and says so when a prompt does not fit", async () => {
    expect(engine.contextSize).toBe(512);
    expect((await engine.listModels())[0]?.contextLength).toBe(512);
    const result = await collectStream(
      engine.stream({ messages: [{ role: "user", content: "x ".repeat(600) }] }),
    );
    expect(result.error?.code).toBe("context_length_exceeded");
    expect(result.error?.message).toContain("the model was trained for 512 tokens");
    expect(result.error?.message).toContain("context_size = 4096 is capped");
    expect(result.error?.message).not.toContain("raise context_size");
  });
});
