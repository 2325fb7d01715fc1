// Keeps each model call inside the context window: estimates the prompt (calibrated by the
// engine's reported usage), drops the oldest tool outputs first, then compacts older turns.
import type { ToolDefinition } from "../../engines/engine.ts";
import type { TranscriptMessage } from "../transcript.ts";
import { estimateMessagesTokens, estimateToolsTokens } from "./estimate-tokens.ts";
import { summarizeTranscript } from "./summarize-transcript.ts";

export const DEFAULT_WINDOW_TOKENS = 128 * 1024;
/** Outputs shorter than this are not worth replacing with a note. */
const MIN_TRUNCATED_CHARS = 200;

export interface ContextBudgetOptions {
  windowTokens?: number;
  /** Room kept for the answer; default an eighth of the window, at most 8192. */
  reserveOutputTokens?: number;
}

export interface FitResult {
  /** The transcript to send; a new array when anything was trimmed. */
  messages: TranscriptMessage[];
  changed: boolean;
  usedTokens: number;
  truncatedToolOutputs: number;
  compacted: boolean;
  /** Where the current turn now starts in `messages` (it moves when older turns are compacted). */
  currentTurnStart: number;
}

export type CompactResult =
  | { compacted: true; messages: TranscriptMessage[]; tokensBefore: number; tokensAfter: number }
  | { compacted: false; tokensBefore: number; tokensAfter: number };

export class ContextBudget {
  readonly windowTokens: number;
  readonly limitTokens: number;
  /** Engine-reported tokens for the first `messageCount` messages, while that prefix is unchanged. */
  private calibration: { messageCount: number; tokens: number } | undefined;
  /** Real tokens per estimated token, learned from the engine's counts (tokenizers differ). */
  private tokensPerEstimate = 1;

  constructor(options: ContextBudgetOptions = {}) {
    this.windowTokens = options.windowTokens ?? DEFAULT_WINDOW_TOKENS;
    const reserve =
      options.reserveOutputTokens ?? Math.min(8192, Math.floor(this.windowTokens / 8));
    this.limitTokens = Math.max(1, this.windowTokens - reserve);
  }

  /**
   * After a model call: what the engine counted for the prompt it was sent (which also teaches
   * the estimate this engine's tokenizer), plus the answer now appended as message `messageCount`.
   */
  recordUsage(
    sent: readonly TranscriptMessage[],
    tools: readonly ToolDefinition[],
    messageCount: number,
    usage: { inputTokens: number; outputTokens: number },
  ): void {
    if (usage.inputTokens <= 0) return;
    this.learnRatio(sent, tools, usage.inputTokens);
    this.calibration = { messageCount, tokens: usage.inputTokens + usage.outputTokens };
  }

  /** The engine refused the prompt as too long: learn its real size so the next fit trims enough. */
  recordOverflow(
    sent: readonly TranscriptMessage[],
    tools: readonly ToolDefinition[],
    inputTokens: number,
  ): void {
    this.calibration = undefined;
    if (inputTokens > 0) this.learnRatio(sent, tools, inputTokens);
  }

  estimate(messages: readonly TranscriptMessage[], tools: readonly ToolDefinition[]): number {
    const calibration = this.calibration;
    if (calibration !== undefined && calibration.messageCount <= messages.length) {
      const added = estimateMessagesTokens(messages.slice(calibration.messageCount));
      return calibration.tokens + Math.ceil(added * this.tokensPerEstimate);
    }
    return Math.ceil(this.rawEstimate(messages, tools) * this.tokensPerEstimate);
  }

  private rawEstimate(messages: readonly TranscriptMessage[], tools: readonly ToolDefinition[]) {
    return estimateMessagesTokens(messages) + estimateToolsTokens(tools);
  }

  private learnRatio(
    sent: readonly TranscriptMessage[],
    tools: readonly ToolDefinition[],
    inputTokens: number,
  ): void {
    const raw = this.rawEstimate(sent, tools);
    if (raw > 0) this.tokensPerEstimate = inputTokens / raw;
  }

  /**
   * Compacts every turn so far into one summary now, between turns (the `/compact` command).
   * Nothing changes when the summary would not be smaller than what it replaces, e.g. a
   * transcript that is already only a summary.
   */
  compact(
    transcript: readonly TranscriptMessage[],
    tools: readonly ToolDefinition[],
  ): CompactResult {
    const tokensBefore = this.estimate(transcript, tools);
    const summarized = compactOlderTurns(transcript, transcript.length);
    if (summarized === undefined)
      return { compacted: false, tokensBefore, tokensAfter: tokensBefore };
    const tokensAfter = Math.ceil(
      this.rawEstimate(summarized.messages, tools) * this.tokensPerEstimate,
    );
    if (tokensAfter >= tokensBefore)
      return { compacted: false, tokensBefore, tokensAfter: tokensBefore };
    this.calibration = undefined;
    return { compacted: true, messages: summarized.messages, tokensBefore, tokensAfter };
  }

  /**
   * Trims the transcript until the estimate fits: oldest tool outputs first (the latest step's
   * are kept), then older turns compacted into a summary (the current turn, from
   * `currentTurnStart`, is kept), then the latest tool outputs too.
   */
  fit(
    transcript: readonly TranscriptMessage[],
    tools: readonly ToolDefinition[],
    currentTurnStart: number,
  ): FitResult {
    let messages = [...transcript];
    let usedTokens = this.estimate(messages, tools);
    let turnStart = currentTurnStart;
    const result = (changed: boolean, truncated: number, compacted: boolean): FitResult => {
      if (changed) this.calibration = undefined;
      return {
        messages,
        changed,
        usedTokens,
        truncatedToolOutputs: truncated,
        compacted,
        currentTurnStart: turnStart,
      };
    };
    if (usedTokens <= this.limitTokens) return result(false, 0, false);
    this.calibration = undefined;
    let truncated = 0;
    const truncateOldest = (protectFrom: number): void => {
      for (let index = 0; index < protectFrom && usedTokens > this.limitTokens; index += 1) {
        const message = messages[index];
        if (message?.role !== "tool" || message.content.length < MIN_TRUNCATED_CHARS) continue;
        messages[index] = {
          ...message,
          content: `[output removed to save context; call ${message.name ?? "the tool"} again if you need it]`,
        };
        truncated += 1;
        usedTokens = this.estimate(messages, tools);
      }
    };
    truncateOldest(latestStepStart(messages));
    if (usedTokens <= this.limitTokens) return result(true, truncated, false);
    let compacted = false;
    const summarized = compactOlderTurns(messages, currentTurnStart);
    if (summarized !== undefined) {
      messages = summarized.messages;
      compacted = true;
      turnStart = summarized.keptFrom;
      usedTokens = this.estimate(messages, tools);
    }
    truncateOldest(messages.length);
    return result(true, truncated, compacted);
  }
}

/**
 * Summarises everything between the leading system messages and `keepFrom` into one message
 * (the path both `fit` and an explicit `compact` take); undefined when there is nothing to fold.
 */
function compactOlderTurns(
  messages: readonly TranscriptMessage[],
  keepFrom: number,
): { messages: TranscriptMessage[]; keptFrom: number } | undefined {
  const leading = messages.findIndex((message) => message.role !== "system");
  const end = Math.min(keepFrom, messages.length);
  if (leading === -1 || end <= leading) return undefined;
  const summary: TranscriptMessage = {
    role: "user",
    content: summarizeTranscript(messages.slice(leading, end)),
  };
  return {
    messages: [...messages.slice(0, leading), summary, ...messages.slice(end)],
    keptFrom: leading + 1,
  };
}

/** Index of the first tool result of the trailing run of tool results (the latest step's). */
function latestStepStart(messages: readonly TranscriptMessage[]): number {
  let index = messages.length;
  while (index > 0 && messages[index - 1]?.role === "tool") index -= 1;
  return index;
}
