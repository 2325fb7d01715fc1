// The FIM prompt's token order on the test model's real tokenizer (Qwen2.5-Coder's FIM tokens):
// PSM puts the suffix after the prefix, SPM before it; other files and the file name come first in
// both, the typed middle last, and the stable length ends where the next keystroke changes tokens.
import { getLlama, type Llama, type LlamaModel, type Token } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findFimTokens,
  renderCompletionPrompt,
  type FimFormat,
  type FimTokens,
} from "../../src/engines/llama-cpp/completion-prompt.ts";
import { ensureTestModel } from "../support/test-model.ts";

const prefix = "function add(a, b) {\n  const sum = ";
const suffix = ";\n  return sum;\n}\n";

describe("renderCompletionPrompt", () => {
  let llama: Llama;
  let model: LlamaModel;
  let fim: FimTokens;
  beforeAll(async () => {
    llama = await getLlama({ gpu: false, build: "never" });
    model = await llama.loadModel({ modelPath: await ensureTestModel({ fimTokens: true }) });
    const found = findFimTokens(model);
    if (found === undefined) throw new Error("The FIM test model has no FIM tokens.");
    fim = found;
  });
  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
  });

  const text = (value: string): Token[] => model.tokenize(value, false);
  const format = (order: FimFormat["order"]): FimFormat => ({
    tokens: fim,
    template: undefined,
    order,
  });

  it("PSM: <|fim_prefix|>prefix<|fim_suffix|>suffix<|fim_middle|>, stable through the prefix", () => {
    const rendered = renderCompletionPrompt(model, { prefix, suffix }, format("psm"));
    const head = [fim.prefix, ...text(prefix)];
    expect(rendered.tokens).toEqual([...head, fim.suffix, ...text(suffix), fim.middle]);
    expect(rendered.stableLength).toBe(head.length);
  });

  it("SPM: <|fim_suffix|>suffix<|fim_prefix|>prefix<|fim_middle|>, stable through the prefix", () => {
    const rendered = renderCompletionPrompt(model, { prefix, suffix }, format("spm"));
    const head = [fim.suffix, ...text(suffix), fim.prefix, ...text(prefix)];
    expect(rendered.tokens).toEqual([...head, fim.middle]);
    expect(rendered.stableLength).toBe(head.length);
  });

  it("SPM keeps other files and the file name first and the typed middle last", () => {
    const extra = [{ filename: "lib/math.js", text: "export const zero = 0;" }];
    const completion = { prefix, suffix, extra, filename: "lib/add.js", middle: "a +" };
    const { repositoryName, fileSeparator } = fim;
    if (repositoryName === undefined || fileSeparator === undefined)
      throw new Error("The FIM test model has no repository tokens.");
    const files = [
      repositoryName,
      ...text("spark\n"),
      fileSeparator,
      ...text("lib/math.js\nexport const zero = 0;\n"),
      fileSeparator,
      ...text("lib/add.js\n"),
    ];
    const spm = renderCompletionPrompt(model, completion, format("spm"));
    const head = [...files, fim.suffix, ...text(suffix), fim.prefix, ...text(prefix)];
    expect(spm.tokens).toEqual([...head, fim.middle, ...text("a +")]);
    expect(spm.stableLength).toBe(head.length);
    // The same files lead the PSM prompt: only the FIM block's order differs.
    const psm = renderCompletionPrompt(model, completion, format("psm"));
    expect(psm.tokens.slice(0, files.length)).toEqual(files);
    expect(psm.tokens.length).toBe(spm.tokens.length);
  });

  it("a keystroke keeps SPM's prompt equal up to the cursor, and PSM's only up to the prefix", () => {
    const before = (order: FimFormat["order"]): Token[] =>
      renderCompletionPrompt(model, { prefix, suffix }, format(order)).tokens;
    const after = (order: FimFormat["order"]): Token[] =>
      renderCompletionPrompt(model, { prefix: `${prefix}x`, suffix }, format(order)).tokens;
    const shared = (left: Token[], right: Token[]): number => {
      let index = 0;
      while (index < left.length && left[index] === right[index]) index++;
      return index;
    };
    // SPM: only the typed character and <|fim_middle|> are new.
    expect(after("spm").length - shared(before("spm"), after("spm"))).toBe(2);
    // PSM: the typed character, <|fim_suffix|>, the suffix and <|fim_middle|>.
    expect(after("psm").length - shared(before("psm"), after("psm"))).toBe(text(suffix).length + 3);
  });

  it("the order does not apply to a template, whose placeholders set their own", () => {
    const template = "<SUF>{suffix}<PRE>{prefix}<MID>";
    const withTemplate = (order: FimFormat["order"]): Token[] =>
      renderCompletionPrompt(model, { prefix, suffix }, { tokens: undefined, template, order })
        .tokens;
    expect(withTemplate("spm")).toEqual(withTemplate("psm"));
  });
});
