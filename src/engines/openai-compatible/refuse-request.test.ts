// What the OpenAI-compatible engine refuses before sending: penalties over the Responses API,
// which has none, while Chat Completions carries them on.
import { describe, expect, it } from "vitest";
import { resolveOpenAICompatibleOptions } from "./openai-compatible-options.ts";
import { refuseRequest } from "./run-chat-stream.ts";

const request = {
  messages: [{ role: "user" as const, content: "hi" }],
  sampling: { presencePenalty: 0.5 },
};

describe("refuseRequest", () => {
  it("refuses a non-zero penalty on the Responses API only", () => {
    const options = (api: "chat" | "responses") =>
      resolveOpenAICompatibleOptions({ baseUrl: "http://127.0.0.1:1/v1", model: "m", api });
    expect(refuseRequest(options("chat"), request)).toBeUndefined();
    const refused = refuseRequest(options("responses"), request);
    expect(refused?.code).toBe("invalid_request");
    expect(refused?.message).toMatch(/presence_penalty/);
    const zero = { ...request, sampling: { presencePenalty: 0 } };
    expect(refuseRequest(options("responses"), zero)).toBeUndefined();
  });
});
