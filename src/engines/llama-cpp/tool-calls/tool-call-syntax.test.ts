// The native loop runs tool turns only for the <tool_call> JSON syntax (Qwen, Hermes, the ChatML
// test model's Jinja template); other wrappers' syntaxes are named as the reason to fall back.
import {
  getLlama,
  Llama3_1ChatWrapper,
  QwenChatWrapper,
  resolveChatWrapper,
  type LlamaModel,
} from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureTestModel } from "../../../../test/support/test-model.ts";
import { findToolCallSyntax } from "./tool-call-syntax.ts";

describe("findToolCallSyntax", () => {
  const models: LlamaModel[] = [];
  const load = async (architecture: "qwen2" | "llama"): Promise<LlamaModel> => {
    const llama = await getLlama({ gpu: false, build: "never" });
    const model = await llama.loadModel({
      modelPath: await ensureTestModel({ architecture }),
      vocabOnly: true,
    });
    models.push(model);
    return model;
  };
  let qwen: LlamaModel;
  beforeAll(async () => {
    qwen = await load("qwen2");
  });
  afterAll(async () => {
    for (const model of models) await model.dispose();
  });

  it("finds <tool_call> as one token and the tokens around a call for Qwen's wrapper", () => {
    const syntax = findToolCallSyntax(new QwenChatWrapper(), qwen);
    if ("reason" in syntax) throw new Error(syntax.reason);
    expect(qwen.detokenize([syntax.openToken], true)).toBe("<tool_call>");
    expect(qwen.detokenize(syntax.afterOpen, true)).toBe("\n");
    expect(qwen.detokenize(syntax.afterCall, true)).toBe("\n</tool_call>\n");
  });

  it("finds it for the Jinja template node-llama-cpp resolves for the llama test model", async () => {
    const model = await load("llama");
    const wrapper = resolveChatWrapper(model);
    expect(wrapper.wrapperName).toBe("JinjaTemplate");
    expect("openToken" in findToolCallSyntax(wrapper, model)).toBe(true);
  });

  it("names another syntax as the reason", () => {
    const syntax = findToolCallSyntax(new Llama3_1ChatWrapper(), qwen);
    expect(syntax).toEqual({
      reason: expect.stringContaining("is not <tool_call> JSON") as string,
    });
  });
});
