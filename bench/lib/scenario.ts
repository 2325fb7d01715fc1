// The shape of one benchmark scenario and the run-wide settings it receives.
import type { ScenarioResult } from "./scenario-result.ts";

export type BenchSize = "full" | "quick" | "smoke";

export interface BenchSettings {
  /** full: the sizes the issue names; quick: the whole suite in under 3 minutes on 2 cores (what
   * CI may run); smoke: seconds, for the test suite only (its numbers mean nothing). */
  size: BenchSize;
  /** CPU threads for every engine (ours and the peer's), so comparisons are like for like. */
  threads: number;
  /** A real GGUF instead of the self-written test model. */
  modelPath: string | undefined;
  /** Run the GPU scenario. */
  gpu: boolean;
  /** Path of llama.cpp's llama-server for the peer scenario (LLAMA_SERVER). */
  llamaServerPath: string | undefined;
  log: (line: string) => void;
  signal: AbortSignal;
}

export interface Scenario {
  number: number;
  id: string;
  title: string;
  run(settings: BenchSettings): Promise<ScenarioResult>;
}
