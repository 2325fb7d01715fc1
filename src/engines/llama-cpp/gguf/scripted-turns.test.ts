// A turn-scripted test model really follows each turn's script under llama.cpp: the marker in the
// context chooses the turn (the latest marker wins, however long the context), the same token
// has another successor in another turn, multi-byte pieces are single tokens, and sampling at
// temperature 1 follows the script as greedy decoding does.
import { getLlama, type Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { suiteDirectory } from "../../../../test/support/suite-directory.ts";
import type { ScriptedTurns } from "./scripted-turns.ts";
import { writeTestModel } from "./write-test-model.ts";

const turns: ScriptedTurns = [
  { tokens: ["\n", "Hello", " world", ".", "<|im_end|>"] },
  { marker: "MARK-TWO", tokens: ["\n", "Hello", " again", ".", "<tool_call>", "<|im_end|>"] },
  { marker: "MARK-THREE", tokens: ["\n", "Bye", ".", "<|im_end|>"] },
];

describe("turn-scripted test models", () => {
  const inDirectory = suiteDirectory("spark-scripted-turns-");

  it("each turn follows its own script, chosen by the latest marker in the context", async () => {
    const path = inDirectory("turns.gguf");
    await writeTestModel(path, { shape: "micro", contextLength: 8192, turns });
    const llama = await getLlama({ gpu: false, build: "never" });
    const model = await llama.loadModel({ modelPath: path });
    const context = await model.createContext({ contextSize: 8192, threads: 1 });
    const run = async (prompt: string, temperature: number): Promise<string> => {
      const sequence = context.getSequence();
      const generated: Token[] = [];
      try {
        for await (const token of sequence.evaluate(model.tokenize(prompt, true), {
          temperature,
          seed: 7,
        })) {
          generated.push(token);
          if (generated.length === 12) break;
        }
      } finally {
        await sequence.dispose();
      }
      // node-llama-cpp ends the evaluation at the end-of-turn token without yielding it.
      const ended = generated.length < 12 ? "<end>" : "";
      return model.detokenize(generated, true) + ended;
    };
    // Thousands of unmarked tokens around the marker: its attention score still dominates.
    const filler = "the quick brown fox jumps over the lazy dog\n".repeat(60);
    try {
      expect(model.tokenize("MARK-TWO", true)).toHaveLength(1);
      expect(model.tokenize(" again", true).length).toBeGreaterThan(1);
      for (const temperature of [0, 1]) {
        expect(await run(`user: hi\n`, temperature)).toBe("Hello world.<end>");
        expect(await run(`${filler}MARK-TWO${filler}\n`, temperature)).toBe(
          "Hello again.<tool_call><end>",
        );
        expect(await run(`a MARK-TWO ${filler} MARK-THREE ${filler}\n`, temperature)).toBe(
          "Bye.<end>",
        );
      }
    } finally {
      await context.dispose();
      await model.dispose();
    }
  });

  it("refuses a script a token of which has two successors in one turn", async () => {
    await expect(
      writeTestModel(inDirectory("bad.gguf"), {
        shape: "micro",
        turns: [{ tokens: ["\n", "a", "b", "a", "c"] }],
      }),
    ).rejects.toThrow(/follows "a" with two different tokens/);
    await expect(
      writeTestModel(inDirectory("marked.gguf"), {
        shape: "micro",
        turns: [{ marker: "X", tokens: ["\n", "a"] }],
      }),
    ).rejects.toThrow(/first turn has a marker/);
  });
});
