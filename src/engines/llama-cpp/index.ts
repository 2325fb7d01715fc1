// The embedded llama.cpp engine's public face: the factory and its options. The router loads it
// lazily (it brings node-llama-cpp and the native loop); what reads a model file, the backend or
// the cache without opening an engine is the other face, inspect.ts.
export {
  createLlamaCppEngine,
  LlamaCppEngine,
  type LlamaCppEngineOptions,
} from "./llama-cpp-engine.ts";
