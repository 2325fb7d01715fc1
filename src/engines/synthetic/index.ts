// The synthetic engine's public face: paced tokens and no compute, for benchmarks and tests.
export {
  createSyntheticEngine,
  type SyntheticEngine,
  type SyntheticEngineOptions,
} from "./synthetic-engine.ts";
