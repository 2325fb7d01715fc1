// Builds an engine aimed at a loopback test server, with short timeouts so broken-stream tests end fast.
import {
  createOpenAICompatibleEngine,
  type OpenAICompatibleEngine,
  type OpenAICompatibleEngineOptions,
} from "../../src/engines/openai-compatible/index.ts";

export function engineFor(
  baseUrl: string,
  overrides: Partial<OpenAICompatibleEngineOptions> = {},
): OpenAICompatibleEngine {
  return createOpenAICompatibleEngine({
    preset: "custom",
    baseUrl,
    model: "replay-model",
    warmUp: false,
    timeouts: { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000 },
    ...overrides,
  });
}

export const userRequest = {
  messages: [
    { role: "system" as const, content: "You are terse." },
    { role: "user" as const, content: "Say hello." },
  ],
};
