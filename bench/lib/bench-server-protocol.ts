// The messages between a benchmark and its serving process (IPC), and what that process serves.
import type { EngineRequest } from "../../src/engines/engine.ts";
import type { FimOrder, FimSplit } from "../../src/engines/llama-cpp/completion-prompt.ts";
import type { DecodeLoop } from "../../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import type { ServeConfig } from "../../src/gateway/index.ts";
import type { InProcessRunResult } from "./in-process-streams.ts";
import type { ProbeRecord } from "./probe-engine.ts";

export type BenchEngineSpec =
  | {
      kind: "llama-cpp";
      modelPath: string;
      threads: number;
      contextSize: number;
      sequences: number;
      speculative?: boolean;
      /** The embedded engine's decode loop; default: the engine's (native where it is built). */
      decodeLoop?: DecodeLoop;
      /** "auto" uses a GPU when one is found; false keeps it on the CPU. */
      gpu?: "auto" | false;
      /** Where FIM prompts put the suffix; default: the engine's (PSM). */
      fimOrder?: FimOrder;
      /** Where FIM prompts' prefix ends; default: the engine's (the cursor line's start). */
      fimSplit?: FimSplit;
    }
  | { kind: "synthetic"; tokensPerSecond: number; tokens: number };

export interface BenchServerSpec {
  engine: BenchEngineSpec;
  /** Record the engine's own timings per stream (off where its per-token hop would be measured). */
  probe: boolean;
  serve?: Partial<ServeConfig>;
}

export type ParentMessage =
  | { id: number; type: "cpu-usage" }
  | { id: number; type: "probe-records"; clear: boolean }
  | {
      id: number;
      type: "in-process-run";
      concurrency: number;
      turns: number;
      request: EngineRequest;
      intervalMs: number;
    }
  | { id: number; type: "close" };

export type ChildReply =
  | { id: number; type: "cpu-usage"; micros: number }
  | { id: number; type: "probe-records"; records: ProbeRecord[] }
  | { id: number; type: "in-process-run"; result: InProcessRunResult }
  | { id: number; type: "closed" }
  | { id: number; type: "failed"; message: string };

export type ChildMessage =
  | {
      type: "ready";
      url: string;
      /** A bare echo endpoint in the same process (echo-server.ts): the transport floor. */
      echoUrl: string;
      model: string;
      /** Tokens per sequence the engine really has (the model may cap what was asked). */
      contextLength: number | null;
      onGpu: boolean;
      device: string;
    }
  | { type: "startup-failed"; message: string }
  | ChildReply;
