// The FIM prompt's token order on the test model's real tokenizer (Qwen2.5-Coder's FIM tokens):
// PSM puts the suffix after the prefix, SPM before it; other files and the file name come first in
// both, the typed middle last, and the stable length ends where the next keystroke changes tokens;
// with the line split the cursor line's typed text moves after <|fim_middle|>.
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
  const format = (order: FimFormat["order"], split: FimFormat["split"] = "cursor"): FimFormat => ({
    tokens: fim,
    template: undefined,
    order,
    split,
  });
  const shared = (left: Token[], right: Token[]): number => {
    let index = 0;
    while (index < left.length && left[index] === right[index]) index++;
    return index;
  };

  it("PSM, cursor split: <|fim_prefix|>prefix<|fim_suffix|>suffix<|fim_middle|>, stable through the prefix", () => {
    const rendered = renderCompletionPrompt(model, { prefix, suffix }, format("psm"));
    const head = [fim.prefix, ...text(prefix)];
    expect(rendered.tokens).toEqual([...head, fim.suffix, ...text(suffix), fim.middle]);
    expect(rendered.stableLength).toBe(head.length);
  });

  it("SPM, cursor split: <|fim_suffix|>suffix<|fim_prefix|>prefix<|fim_middle|>, stable through the prefix", () => {
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

  it("cursor split: a keystroke keeps SPM's prompt equal up to the cursor, and PSM's only up to the prefix", () => {
    const before = (order: FimFormat["order"]): Token[] =>
      renderCompletionPrompt(model, { prefix, suffix }, format(order)).tokens;
    const after = (order: FimFormat["order"]): Token[] =>
      renderCompletionPrompt(model, { prefix: `${prefix}x`, suffix }, format(order)).tokens;
    // SPM: only the typed character and <|fim_middle|> are new.
    expect(after("spm").length - shared(before("spm"), after("spm"))).toBe(2);
    // PSM: the typed character, <|fim_suffix|>, the suffix and <|fim_middle|>.
    expect(after("psm").length - shared(before("psm"), after("psm"))).toBe(text(suffix).length + 3);
  });

  it("line split: the cursor line's typed text follows <|fim_middle|>, before the request's middle", () => {
    const lineStart = prefix.lastIndexOf("\n") + 1;
    const head = prefix.slice(0, lineStart);
    const typed = prefix.slice(lineStart);
    const psm = renderCompletionPrompt(
      model,
      { prefix, suffix, middle: "a" },
      format("psm", "line"),
    );
    expect(psm.tokens).toEqual([
      fim.prefix,
      ...text(head),
      fim.suffix,
      ...text(suffix),
      fim.middle,
      ...text(`${typed}a`),
    ]);
    // The cursor is at the end: the next keystroke repeats the whole prompt.
    expect(psm.stableLength).toBe(psm.tokens.length);
    const spm = renderCompletionPrompt(model, { prefix, suffix }, format("spm", "line"));
    expect(spm.tokens).toEqual([
      fim.suffix,
      ...text(suffix),
      fim.prefix,
      ...text(head),
      fim.middle,
      ...text(typed),
    ]);
  });

  it("line split: a keystroke adds only the typed character's token, in either order", () => {
    for (const order of ["psm", "spm"] as const) {
      const before = renderCompletionPrompt(model, { prefix, suffix }, format(order, "line"));
      const after = renderCompletionPrompt(
        model,
        { prefix: `${prefix}x`, suffix },
        format(order, "line"),
      );
      expect(shared(before.tokens, after.tokens), order).toBe(before.tokens.length);
      expect(after.tokens.length - before.tokens.length, order).toBe(1);
    }
  });

  it("line split: a prefix without a line break is all middle", () => {
    const rendered = renderCompletionPrompt(
      model,
      { prefix: "let total = ", suffix },
      format("psm", "line"),
    );
    expect(rendered.tokens).toEqual([
      fim.prefix,
      fim.suffix,
      ...text(suffix),
      fim.middle,
      ...text("let total = "),
    ]);
  });

  it("the order does not apply to a template, whose placeholders set their own", () => {
    const template = "<SUF>{suffix}<PRE>{prefix}<MID>";
    const withTemplate = (order: FimFormat["order"]): Token[] =>
      renderCompletionPrompt(
        model,
        { prefix, suffix },
        { tokens: undefined, template, order, split: "line" },
      ).tokens;
    expect(withTemplate("spm")).toEqual(withTemplate("psm"));
  });
});
