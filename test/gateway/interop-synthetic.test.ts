// The openai SDK interop suite against the gateway running the synthetic engine. The embedded
// llama.cpp engine runs the same suite from its own file with its factory.
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { defineGatewayInteropSuite } from "./support/interop-suite.ts";

defineGatewayInteropSuite({
  name: "synthetic engine",
  createEngine: async () => createSyntheticEngine({ tokensPerSecond: 5000, tokens: 24 }),
});
