// What the synthetic engine "has cached": per conversation, the messages of its last turn plus its
// reply, so a follow-up turn reports the shared prefix as cached tokens, like a real KV cache. A
// request finds its conversation by its key (cacheAffinityKey) or, as the embedded engine and
// upstream prefix caches do, by the longest prefix it shares with one of its cache scope's.
import type { ChatMessage } from "../engine.ts";
import { estimateMessageTokens } from "./synthetic-tokens.ts";

const MAX_SESSIONS = 256;

interface CachedConversation {
  /** The cache scope (tenant) of the request that left it: no other scope's prefix matches it. */
  scope: string | undefined;
  fingerprints: string[];
}

export interface CacheLookup {
  key: string | undefined;
  scope: string | undefined;
  messages: ChatMessage[];
}

export class SyntheticPrefixCache {
  /** Insertion order is recency: the least recently used conversation comes first. */
  private readonly conversations = new Map<string, CachedConversation>();
  private unkeyedCount = 0;

  /** Input tokens of `messages` already present in the cache. */
  cachedTokens(lookup: CacheLookup): number {
    const prompt = lookup.messages.map(fingerprint);
    const found = this.find(lookup, prompt);
    return found === undefined ? 0 : sharedTokens(found.conversation, lookup.messages, prompt);
  }

  /** Remembers what the cache holds after a turn: its prompt and the reply it produced. */
  remember(lookup: CacheLookup, reply: ChatMessage | undefined): void {
    const fingerprints = lookup.messages.map(fingerprint);
    // A request without a key of its own continues the conversation it shares a prefix with.
    const key =
      lookup.key ??
      this.find(lookup, fingerprints)?.key ??
      `unkeyed:${String((this.unkeyedCount += 1))}`;
    if (reply !== undefined) fingerprints.push(fingerprint(reply));
    this.conversations.delete(key);
    this.conversations.set(key, { scope: lookup.scope, fingerprints });
    if (this.conversations.size > MAX_SESSIONS) {
      const oldest = this.conversations.keys().next();
      if (oldest.done !== true) this.conversations.delete(oldest.value);
    }
  }

  private find(
    lookup: CacheLookup,
    prompt: string[],
  ): { key: string; conversation: CachedConversation } | undefined {
    if (lookup.key !== undefined) {
      const own = this.conversations.get(lookup.key);
      if (own !== undefined && own.scope === lookup.scope)
        return { key: lookup.key, conversation: own };
    }
    let best: { key: string; conversation: CachedConversation; tokens: number } | undefined;
    for (const [key, conversation] of this.conversations) {
      if (conversation.scope !== lookup.scope) continue;
      const tokens = sharedTokens(conversation, lookup.messages, prompt);
      if (tokens > 0 && (best === undefined || tokens > best.tokens))
        best = { key, conversation, tokens };
    }
    return best;
  }
}

/** Tokens of the leading messages a cached conversation holds; `prompt`: their fingerprints. */
function sharedTokens(
  conversation: CachedConversation,
  messages: ChatMessage[],
  prompt: string[],
): number {
  let tokens = 0;
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    const cached = conversation.fingerprints[index];
    if (message === undefined || cached === undefined || prompt[index] !== cached) break;
    tokens += estimateMessageTokens(message);
  }
  return tokens;
}

function fingerprint(message: ChatMessage): string {
  if (message.role === "assistant") {
    // An empty tool-call list and none at all are the same prompt.
    const toolCalls = message.toolCalls?.length ? message.toolCalls : undefined;
    return JSON.stringify({ role: message.role, content: message.content, toolCalls });
  }
  return JSON.stringify(message);
}
