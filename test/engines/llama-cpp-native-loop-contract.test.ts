// The shared engine contract on Spark's native decode loop, on node-llama-cpp's chat-wrapper prompt
// and on the default chat-format path (the contract on node-llama-cpp's loop is in
// llama-cpp-engine.test.ts).
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { engineOptions, notBuilt } from "../support/native-loop-options.ts";
import { runEngineContract, type EngineContractCase } from "../support/run-engine-contract.ts";
import { ensureTestModel } from "../support/test-model.ts";

// Where the addon is not built, each contract case says so instead of passing on the other loop.
const PLAIN_CASES: EngineContractCase[] = [
  "streams text",
  "honours max tokens",
  "honours stop",
  "abort keeps partial text",
  "concurrent requests do not mix",
  "bad request is a typed error",
  "usage and timings are present",
  "a completion request streams or is refused",
  "structured output follows the schema or is refused",
];
const CHAT_FORMAT_CASES: EngineContractCase[] = [
  ...PLAIN_CASES,
  "a partial answer is continued or refused",
  "a required tool call streams and parses",
];
const skipAll = (
  cases: EngineContractCase[],
  reason: string,
): Partial<Record<EngineContractCase, string>> =>
  Object.fromEntries(cases.map((name) => [name, reason]));

runEngineContract({
  name: "llama-cpp (native decode loop)",
  createEngine: async () => {
    const engine = await createLlamaCppEngine(
      await engineOptions({
        modelPath: await ensureTestModel({ fimTokens: true }),
        sequences: 4,
        decodeLoop: "native",
      }),
    );
    if (notBuilt === undefined && engine.decodeLoop !== "native") {
      throw new Error(`expected the native loop: ${engine.decodeLoopFallbackReason}`);
    }
    return engine;
  },
  ...(notBuilt === undefined ? {} : { skip: skipAll(PLAIN_CASES, notBuilt) }),
});

// The same contract on the default chat path: llama.cpp's own chat format (the test model's
// template, its grammar and parser) on the native loop.
runEngineContract({
  name: "llama-cpp (native decode loop, chat format)",
  createEngine: async () => {
    const options = await engineOptions({
      modelPath: await ensureTestModel({ fimTokens: true }),
      sequences: 4,
      decodeLoop: "native",
    });
    // No chatPath: what a user gets.
    delete options.chatPath;
    const engine = await createLlamaCppEngine(options);
    if (notBuilt === undefined && engine.chatPath !== "chat-format") {
      throw new Error(`expected the chat-format path, got ${engine.chatPath}`);
    }
    return engine;
  },
  ...(notBuilt === undefined ? {} : { skip: skipAll(CHAT_FORMAT_CASES, notBuilt) }),
  // Qwen's format lets a turn hold several calls (`(tool-call space)+`, parallel_tool_calls), and
  // greedy noise never ranks <|im_end|> first after one, so its calls would run to max tokens: the
  // required call runs on a model scripted to write one call in Qwen2.5's format and end its turn.
  toolCallEngine: async () => {
    const options = await engineOptions({
      modelPath: await ensureTestModel({
        turns: [
          {
            tokens: [
              "\n",
              "<tool_call>",
              '\n{"name": "get_weather", ',
              '"arguments": {"city": "Paris"',
              // A forced call's compact grammar (chat-format-prompt.ts) allows a space at most
              // between the object and </tool_call>, where Qwen2.5's format writes a newline.
              "}}",
              "</tool_call>",
              "<|im_end|>",
            ],
          },
        ],
      }),
      sequences: 1,
      decodeLoop: "native",
    });
    delete options.chatPath;
    return createLlamaCppEngine(options);
  },
});
