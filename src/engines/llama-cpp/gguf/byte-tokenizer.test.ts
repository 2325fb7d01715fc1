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

  it("refuses a vocabulary too small for the bytes and control tokens", () => {
    expect(() => buildByteTokenizer(100)).toThrow(RangeError);
  });
});
