// A scripted test model really follows its script under llama.cpp: greedy decoding after a prompt
// ends in the scripted successors, special tokens included.
import { getLlama } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { suiteDirectory } from "../../../../test/support/suite-directory.ts";
import { writeTestModel } from "./write-test-model.ts";

describe("scripted test models", () => {
  const inDirectory = suiteDirectory("spark-scripted-model-");

  it("greedy decoding follows the successors, a special token included", async () => {
    const path = inDirectory("script.gguf");
    await writeTestModel(path, {
      shape: "micro",
      contextLength: 256,
      successors: { a: "b", b: "c", c: "<tool_call>", "<tool_call>": "a" },
    });
    const llama = await getLlama({ gpu: false, build: "never" });
    const model = await llama.loadModel({ modelPath: path });
    const context = await model.createContext({ contextSize: 256, threads: 1 });
    try {
      const generated: number[] = [];
      for await (const token of context.getSequence().evaluate(model.tokenize("xyz-a"), {
        temperature: 0,
      })) {
        generated.push(token);
        if (generated.length === 8) break;
      }
      expect(model.detokenize(generated as never, true)).toBe("bc<tool_call>abc<tool_call>a");
    } finally {
      await context.dispose();
      await model.dispose();
    }
  });

  it("refuses a successor that is neither one byte nor a special token, and a tied shape", async () => {
    await expect(
      writeTestModel(inDirectory("bad.gguf"), { shape: "micro", successors: { ab: "c" } }),
    ).rejects.toThrow(/one byte or a special token/);
    await expect(
      writeTestModel(inDirectory("tied.gguf"), { shape: "0.5b", successors: { a: "b" } }),
    ).rejects.toThrow(/output head/);
  });
});
