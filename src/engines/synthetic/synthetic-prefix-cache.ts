// What the synthetic engine "has cached" per sessionKey: the messages of its last turn plus its
// reply, so a follow-up turn reports the shared prefix as cached tokens, like a real KV cache.
import type { ChatMessage } from "../engine.ts";
import { estimateMessageTokens } from "./synthetic-tokens.ts";

const MAX_SESSIONS = 256;

export class SyntheticPrefixCache {
  private readonly sessions = new Map<string, string[]>();

  /** Input tokens of `messages` already present in the session's cache. */
  cachedTokens(sessionKey: string | undefined, messages: ChatMessage[]): number {
    if (sessionKey === undefined) return 0;
    const cached = this.sessions.get(sessionKey);
    if (cached === undefined) return 0;
    let tokens = 0;
    for (let index = 0; index < messages.length && index < cached.length; index += 1) {
      const message = messages[index];
      if (message === undefined || fingerprint(message) !== cached[index]) break;
      tokens += estimateMessageTokens(message);
    }
    return tokens;
  }

  /** Remembers what the cache holds after a turn: its prompt and the reply it produced. */
  remember(
    sessionKey: string | undefined,
    messages: ChatMessage[],
    reply: ChatMessage | undefined,
  ): void {
    if (sessionKey === undefined) return;
    const fingerprints = messages.map(fingerprint);
    if (reply !== undefined) fingerprints.push(fingerprint(reply));
    // Re-inserting moves the key to the end, so the Map's order is least recently used first.
    this.sessions.delete(sessionKey);
    this.sessions.set(sessionKey, fingerprints);
    if (this.sessions.size > MAX_SESSIONS) {
      const oldest = this.sessions.keys().next();
      if (oldest.done !== true) this.sessions.delete(oldest.value);
    }
  }
}

function fingerprint(message: ChatMessage): string {
  if (message.role === "assistant") {
    // An empty tool-call list and none at all are the same prompt.
    const toolCalls = message.toolCalls?.length ? message.toolCalls : undefined;
    return JSON.stringify({ role: message.role, content: message.content, toolCalls });
  }
  return JSON.stringify(message);
}
