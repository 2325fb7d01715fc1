// The openai SDK interop suite against the gateway running the real embedded engine on the
// project's own test model: the cached-token report of turn 3 comes from llama.cpp's KV cache.
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import { ensureTestModel } from "../support/test-model.ts";
import { defineGatewayInteropSuite } from "./support/interop-suite.ts";

defineGatewayInteropSuite({
  name: "llama-cpp engine",
  createEngine: async () =>
    createLlamaCppEngine({
      modelPath: await ensureTestModel(),
      threads: 1,
      sequences: 4,
      contextSize: 4096,
    }),
});
