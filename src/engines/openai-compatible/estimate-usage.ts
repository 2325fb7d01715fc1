// Fills in what the upstream did not report (a cancelled or failed stream never gets its usage
// chunk): input from the prompt's length, output from what was streamed, at about 4 characters a token.
import type { ChatMessage, Usage } from "../engine.ts";

export interface StreamedOutput {
  /** Text and tool-argument deltas received; servers send about one token per delta. */
  deltaCount: number;
  characterCount: number;
}

export function estimateInputTokens(messages: ChatMessage[]): number {
  let characters = 0;
  for (const message of messages) {
    characters += message.content.length;
    if (message.role === "assistant") {
      for (const toolCall of message.toolCalls ?? [])
        characters += toolCall.name.length + toolCall.arguments.length;
    }
  }
  return Math.ceil(characters / 4);
}

export function completeUsage(
  reported: Partial<Usage> | undefined,
  messages: ChatMessage[],
  output: StreamedOutput,
): Usage {
  const usage: Usage = {
    inputTokens: reported?.inputTokens ?? estimateInputTokens(messages),
    cachedInputTokens: reported?.cachedInputTokens ?? 0,
    outputTokens:
      reported?.outputTokens ?? Math.max(output.deltaCount, Math.ceil(output.characterCount / 4)),
  };
  if (reported?.acceptedPredictionTokens !== undefined) {
    usage.acceptedPredictionTokens = reported.acceptedPredictionTokens;
  }
  if (reported?.rejectedPredictionTokens !== undefined) {
    usage.rejectedPredictionTokens = reported.rejectedPredictionTokens;
  }
  return usage;
}
