// The self-written test model is deterministic, and the bundled llama.cpp loads it, tokenizes any
// text byte-exactly, generates tokens and resolves a ChatML-family chat wrapper for it.

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import {
  getLlama,
  JinjaTemplateChatWrapper,
  LlamaChatSession,
  QwenChatWrapper,
  readGgufFileInfo,
  resolveChatWrapper,
  type Llama,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suiteDirectory } from "../../../../test/support/suite-directory.ts";
import { ensureTestModel } from "../../../../test/support/test-model.ts";
import { writeTestModel } from "./write-test-model.ts";

async function sha256(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

describe("writeTestModel", () => {
  const inDirectory = suiteDirectory("spark-test-model-");

  it("writes the same bytes for the same seed and different weights for another", async () => {
    const first = await writeTestModel(inDirectory("a.gguf"), { type: "q8_0", seed: 5 });
    const again = await writeTestModel(inDirectory("b.gguf"), { type: "q8_0", seed: 5 });
    const other = await writeTestModel(inDirectory("c.gguf"), { type: "q8_0", seed: 6 });
    expect(await sha256(first.path)).toBe(await sha256(again.path));
    expect(await sha256(first.path)).not.toBe(await sha256(other.path));
    expect(first.byteLength).toBe(other.byteLength);
  });

  it("describes a Qwen2.5-style model in its metadata", async () => {
    const info = await readGgufFileInfo(await ensureTestModel(), { logWarnings: false });
    const tokenizer = info.metadata.tokenizer.ggml;
    expect(info.metadata.general.architecture).toBe("qwen2");
    expect(tokenizer.model).toBe("gpt2");
    expect(tokenizer.tokens.length).toBe(320);
    expect(tokenizer.tokens[tokenizer.eos_token_id ?? -1]).toBe("<|im_end|>");
    expect(info.metadata.tokenizer.chat_template).toContain("<tool_call>");
    expect(
      info.tensorInfo?.find((tensor) => tensor.name === "token_embd.weight")?.dimensions,
    ).toEqual([256, 320]);
  });
});

describe("the tiny test model in node-llama-cpp", () => {
  let llama: Llama;

  beforeAll(async () => {
    llama = await getLlama({ gpu: false });
  });

  afterAll(async () => {
    await llama.dispose();
  });

  it("loads, round-trips text through the tokenizer and generates tokens", async () => {
    const model = await llama.loadModel({ modelPath: await ensureTestModel() });
    // Threads stated explicitly: the default oversubscribes small CI machines badly.
    const context = await model.createContext({ contextSize: 512, threads: 1 });
    try {
      const text = "héllo wörld 🚀\n\tthe end";
      const tokens = model.tokenize(text);
      expect(model.detokenize(tokens)).toBe(text);

      const sequence = context.getSequence();
      const generated = [];
      for await (const token of sequence.evaluate(model.tokenize("Hello"), { temperature: 0 })) {
        generated.push(token);
        if (generated.length === 10) break;
      }
      expect(generated.length).toBeGreaterThan(0);
      expect(generated.every((token) => token >= 0 && token < 320)).toBe(true);

      // The wrapper a chat session picks by itself, as the embedded engine will.
      const session = new LlamaChatSession({ contextSequence: sequence });
      expect(session.chatWrapper).toBeInstanceOf(QwenChatWrapper);
      session.dispose();
    } finally {
      await context.dispose();
      await model.dispose();
    }
  });

  it("gets the Jinja ChatML wrapper, with <tool_call> function calls, when written as llama", async () => {
    const modelPath = await ensureTestModel({ architecture: "llama" });
    const model = await llama.loadModel({ modelPath, vocabOnly: true });
    try {
      const wrapper = resolveChatWrapper(model);
      expect(wrapper).toBeInstanceOf(JinjaTemplateChatWrapper);
      expect(JSON.stringify(wrapper.settings.functions.call.prefix)).toContain("<tool_call>");
    } finally {
      await model.dispose();
    }
  });
});
