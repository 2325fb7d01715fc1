// The events an agent session streams to every surface (terminal, `spark exec --json`, app
// server) and writes to its session log: one discriminated union, named noun-action.
import type { Usage } from "../usage.ts";
import type { SparkErrorJson } from "../spark-error.ts";

/**
 * One file an edit tool changed, with the unified diff shown to the user. A type, not an
 * interface: events are checked against `{ type: string; [key: string]: unknown }` on the wire.
 */
export type AppliedEdit = {
  path: string;
  kind: "add" | "delete" | "update" | "move";
  movedFrom?: string;
  unifiedDiff: string;
  linesAdded: number;
  linesRemoved: number;
  undoEntryId: string;
};

export type TurnEndReason = "completed" | "interrupted" | "error" | "max_steps";

export interface TurnTimings {
  totalMs: number;
  /** Time spent streaming from the model, all steps together. */
  modelMs: number;
  /** Time spent running tools. */
  toolMs: number;
  /** From the turn's start to the model's first token of the first step. */
  timeToFirstTokenMs: number | null;
  /** Each step's first-to-last-token time, all steps together (prefill and queueing excluded). */
  decodeMs: number;
  /** Output tokens decoded in `decodeMs`: every step's tokens after its first. */
  decodeTokens: number;
}

export type AgentEvent =
  | {
      type: "session-started";
      sessionId: string;
      /** The session's JSONL log. */
      logPath: string;
      cwd: string;
      model?: string;
      resumed: boolean;
      /** What run_command's children run inside (absent in logs older than the sandbox). */
      commandSandbox?: { kind: "bubblewrap" | "none"; description: string };
    }
  | { type: "turn-started"; turnId: string; text: string }
  /** A message the user sent while the turn ran: a steer (after an interrupt) or a queued one. */
  | { type: "user-message"; turnId: string; text: string; via: "steer" | "queue" }
  | { type: "text-delta"; turnId: string; text: string }
  | {
      type: "tool-call";
      turnId: string;
      callId: string;
      name: string;
      /** The JSON arguments exactly as the model wrote them. */
      arguments: string;
      /** One line for people, e.g. "read_file src/a.ts:1-40". */
      summary: string;
    }
  | {
      type: "tool-result";
      turnId: string;
      callId: string;
      name: string;
      /** What the model sees (already capped). */
      output: string;
      isError: boolean;
      durationMs: number;
    }
  | ({ type: "edit-applied"; turnId: string; callId: string } & AppliedEdit)
  | {
      type: "edit-undone";
      undoEntryId: string;
      files: { path: string; action: "restored" | "deleted"; unifiedDiff: string }[];
    }
  | {
      type: "budget";
      turnId: string;
      /** Estimated prompt tokens of the next model call. */
      usedTokens: number;
      /** What the prompt may use: the window minus room for the answer. */
      limitTokens: number;
      windowTokens: number;
      /** Tool outputs replaced by a note to make room, in this step. */
      truncatedToolOutputs: number;
      /** Older turns were summarised into one message in this step. */
      compacted: boolean;
    }
  /** Older turns were summarised into one message on request (`session/compact`), between turns. */
  | {
      type: "context-compacted";
      /** Estimated prompt tokens of the next model call, before and after. */
      tokensBefore: number;
      tokensAfter: number;
      windowTokens: number;
    }
  | {
      type: "interrupted";
      turnId: string;
      reason: "interrupt" | "steer";
      /** The assistant text streamed before the interrupt; kept in the transcript, marked. */
      partialText: string;
      /** Queued messages dropped by an interrupt, so a surface can put them back in its input. */
      discardedQueue: string[];
    }
  | {
      type: "turn-finished";
      turnId: string;
      reason: TurnEndReason;
      steps: number;
      usage: Usage;
      timings: TurnTimings;
    }
  /** Which model the router chose for the turn's model calls and why (sent when it changes). */
  | { type: "route"; turnId: string; model: string; reason: string }
  | { type: "error"; turnId?: string; error: SparkErrorJson };

export type AgentEventType = AgentEvent["type"];
