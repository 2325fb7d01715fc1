// What a generation path reports as it runs (the finish, tokens out, tokens reused from the cache):
// its own module so every path and the token emitter they share can fill it in.
import type { FinishReason } from "../engine.ts";

/** Filled in by a generation path as it runs; read by the engine for usage and the finish. */
export interface GenerationResult {
  finishReason: FinishReason;
  outputTokens: number;
  cachedInputTokens: number;
}
