// What the native decode loop's test files share: whether the addon is built here, the engine
// options they compare the loops with, and a one-message request.
import { existsSync } from "node:fs";
import { describe } from "vitest";
import type { EngineRequest, SamplingOptions } from "../../src/engines/engine.ts";
import type { LlamaCppEngineOptions } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { ensureTestModel } from "./test-model.ts";

// The addon is built at npm install; where it could not be (no compiler), say so rather than
// pass on node-llama-cpp's loop in its name.
export const notBuilt = existsSync(defaultAddonPath)
  ? undefined
  : "the native generation loop is not built here (npm run build:native says why)";
export const describeNative = notBuilt === undefined ? describe : describe.skip;

export const engineOptions = async (
  extra: Partial<LlamaCppEngineOptions> = {},
): Promise<LlamaCppEngineOptions> => ({
  modelPath: await ensureTestModel(),
  threads: 1,
  sequences: 2,
  contextSize: 2048,
  // The loops compared on node-llama-cpp's chat-wrapper prompt (and its <tool_call> jobs), the one
  // rendering both loops run (the chat format is the native loop's alone); the chat-format path
  // is tested in llama-cpp-chat-format*.test.ts.
  chatPath: "chat-wrapper",
  ...extra,
});

export const request = (
  content: string,
  sampling: SamplingOptions,
  extra: Partial<EngineRequest> = {},
): EngineRequest => ({ messages: [{ role: "user", content }], sampling, ...extra });
