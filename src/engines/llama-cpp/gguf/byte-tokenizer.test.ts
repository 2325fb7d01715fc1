// Checks the byte vocabulary covers every byte once and places the ChatML control tokens.

import { describe, expect, it } from "vitest";
import { buildByteTokenizer, gpt2ByteSymbols, tokenTypes } from "./byte-tokenizer.ts";

describe("buildByteTokenizer", () => {
  it("maps all 256 bytes to distinct single-character symbols, printable ones to themselves", () => {
    const symbols = gpt2ByteSymbols();
    expect(new Set(symbols).size).toBe(256);
    expect(symbols["a".charCodeAt(0)]).toBe("a");
    expect(symbols[0x20]).toBe("Ġ"); // GPT-2 writes the space byte as U+0120
    expect(symbols[0x0a]).toBe("Ċ");
  });

  it("pads to the requested size with unique tokens and marks control tokens", () => {
    const tokenizer = buildByteTokenizer(2000);
    expect(tokenizer.tokens.length).toBe(2000);
    expect(tokenizer.tokenTypes.length).toBe(2000);
    expect(new Set(tokenizer.tokens).size).toBe(2000);
    expect(tokenizer.tokens[tokenizer.imStartId]).toBe("<|im_start|>");
    expect(tokenizer.tokens[tokenizer.imEndId]).toBe("<|im_end|>");
    expect(tokenizer.tokens[tokenizer.endOfTextId]).toBe("<|endoftext|>");
    expect(tokenizer.tokenTypes[tokenizer.imEndId]).toBe(tokenTypes.control);
    for (const merge of tokenizer.merges) {
      const [left, right] = merge.split(" ");
      expect(tokenizer.tokens).toContain(`${left}${right}`);
    }
  });

  it("places Qwen2.5-Coder's FIM tokens at spark-code-tiny's ids only when asked", () => {
    const plain = buildByteTokenizer(320);
    expect(plain.fimTokenIds).toBeUndefined();
    expect(plain.tokens).not.toContain("<|fim_prefix|>");
    const withFim = buildByteTokenizer(320, { fimTokens: true });
    expect(withFim.tokens.length).toBe(320);
    expect(withFim.fimTokenIds).toEqual({
      prefix: 271,
      middle: 272,
      suffix: 273,
      pad: 274,
      repositoryName: 275,
      fileSeparator: 276,
    });
    expect(withFim.tokens.slice(271, 277)).toEqual([
      "<|fim_prefix|>",
      "<|fim_middle|>",
      "<|fim_suffix|>",
      "<|fim_pad|>",
      "<|repo_name|>",
      "<|file_sep|>",
    ]);
    expect(withFim.tokenTypes[271]).toBe(tokenTypes.control);
    // Everything before the FIM tokens is unchanged, so the plain model's ids stay valid.
    expect(withFim.tokens.slice(0, 271)).toEqual(plain.tokens.slice(0, 271));
  });

  it("refuses a vocabulary too small for the bytes and control tokens", () => {
    expect(() => buildByteTokenizer(100)).toThrow(RangeError);
  });
});
