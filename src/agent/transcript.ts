// The conversation as the agent keeps it: engine chat messages, plus a mark on assistant text cut
// short by an interrupt. What is sent to the model drops the mark.
import type { ChatMessage } from "../engines/engine.ts";

export type TranscriptMessage = ChatMessage & { interrupted?: boolean };

export function toEngineMessages(transcript: readonly TranscriptMessage[]): ChatMessage[] {
  return transcript.map((message) => {
    if (message.interrupted === undefined) return message;
    const { interrupted: _interrupted, ...rest } = message;
    return rest;
  });
}

/**
 * Every tool call needs a result before the next user or assistant message (APIs reject it
 * otherwise): a log cut by a crash, or a call never run, gets a "not run" result.
 */
export function closeOpenToolCalls(
  transcript: readonly TranscriptMessage[],
  reason: string,
): TranscriptMessage[] {
  const repaired: TranscriptMessage[] = [];
  let open: { id: string; name: string }[] = [];
  const closeAll = (): void => {
    for (const call of open) {
      repaired.push({ role: "tool", toolCallId: call.id, name: call.name, content: reason });
    }
    open = [];
  };
  for (const message of transcript) {
    if (message.role === "tool") {
      open = open.filter((call) => call.id !== message.toolCallId);
    } else {
      closeAll();
      if (message.role === "assistant") {
        open = (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name }));
      }
    }
    repaired.push(message);
  }
  closeAll();
  return repaired;
}
