import { describe, expect, it } from "vitest";
import { buildChatRequestBody, type RequestBodyCapabilities } from "./build-chat-request-body.ts";

const vllm: RequestBodyCapabilities = {
  model: "m",
  supportsPrediction: false,
  supportsStreamUsage: true,
  maxTokensField: "max_tokens",
};
const openai: RequestBodyCapabilities = {
  model: "gpt",
  supportsPrediction: true,
  supportsStreamUsage: true,
  maxTokensField: "max_completion_tokens",
};
const messages = [{ role: "user" as const, content: "hi" }];

describe("buildChatRequestBody", () => {
  it("sends only what was asked for", () => {
    expect(buildChatRequestBody({ messages }, { ...vllm, supportsStreamUsage: false })).toEqual({
      model: "m",
      messages,
      stream: true,
    });
  });

  it("carries top_k, min_p and the penalties only when the client set them", () => {
    const body = buildChatRequestBody(
      {
        messages,
        sampling: { topK: 20, minP: 0.05, presencePenalty: 0.5, frequencyPenalty: -0.25 },
      },
      vllm,
    );
    expect(body).toMatchObject({
      top_k: 20,
      min_p: 0.05,
      presence_penalty: 0.5,
      frequency_penalty: -0.25,
    });
    const plain = buildChatRequestBody({ messages, sampling: { temperature: 0 } }, vllm);
    for (const field of ["top_k", "min_p", "presence_penalty", "frequency_penalty"]) {
      expect(plain).not.toHaveProperty(field);
    }
  });

  it("maps sampling, tools and stream usage", () => {
    const body = buildChatRequestBody(
      {
        messages,
        tools: [{ name: "f", parameters: { type: "object" } }],
        sampling: { temperature: 0, topP: 1, maxOutputTokens: 5, stop: ["x"], seed: 3 },
      },
      vllm,
    );
    expect(body).toEqual({
      model: "m",
      messages,
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
      temperature: 0,
      top_p: 1,
      max_tokens: 5,
      stop: ["x"],
      seed: 3,
    });
  });

  it("maps tool_choice, named or not", () => {
    const tools = [{ name: "f", parameters: { type: "object" } }];
    expect(
      buildChatRequestBody({ messages, tools, toolChoice: "required" }, vllm).tool_choice,
    ).toBe("required");
    expect(
      buildChatRequestBody({ messages, tools, toolChoice: { name: "f" } }, vllm).tool_choice,
    ).toEqual({
      type: "function",
      function: { name: "f" },
    });
    expect(
      buildChatRequestBody({ messages, toolChoice: "required" }, vllm).tool_choice,
    ).toBeUndefined();
  });

  it("passes a prediction only where the upstream supports it", () => {
    expect(buildChatRequestBody({ messages, prediction: "code" }, vllm).prediction).toBeUndefined();
    expect(buildChatRequestBody({ messages, prediction: "code" }, openai).prediction).toEqual({
      type: "content",
      content: "code",
    });
    expect(buildChatRequestBody({ messages, prediction: "" }, openai).prediction).toBeUndefined();
  });

  it("uses max_completion_tokens for OpenAI", () => {
    const body = buildChatRequestBody({ messages, sampling: { maxOutputTokens: 9 } }, openai);
    expect(body.max_completion_tokens).toBe(9);
    expect(body.max_tokens).toBeUndefined();
  });

  it("ignores the request's model: the engine serves the one it was configured with", () => {
    expect(buildChatRequestBody({ model: "fast", messages }, vllm).model).toBe("m");
  });
});
