// Finished responses by id, so `previous_response_id` works over WebSocket and HTTP alike.
// In memory, bounded three ways: entry count and total size (least recently used goes first), and age.
import type { ResponseOutputItem } from "../../protocol/responses-events.ts";
import type { StoredResponse } from "./gateway-store.ts";

export type { StoredResponse };

export interface ResponseStoreLimits {
  maxEntries: number;
  maxBytes: number;
  ttlMs: number;
}

interface Entry {
  stored: StoredResponse;
  bytes: number;
  storedAt: number;
}

export class ResponseStore {
  private readonly entries = new Map<string, Entry>();
  /** Output item id → the id of the response that produced it, for `item_reference`. */
  private readonly itemOwners = new Map<string, string>();
  private totalBytes = 0;

  constructor(
    private readonly limits: ResponseStoreLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  put(stored: StoredResponse): void {
    this.delete(stored.id);
    const bytes = estimateStoredBytes(stored);
    // One response larger than the whole store is not kept: chaining from it gets not-found.
    if (bytes > this.limits.maxBytes) return;
    this.entries.set(stored.id, { stored, bytes, storedAt: this.now() });
    for (const item of stored.response.output) this.itemOwners.set(item.id, stored.id);
    this.totalBytes += bytes;
    this.evict();
  }

  /** The response if it is still held and belongs to `ownerKey`; a hit counts as a use. */
  get(id: string, ownerKey: string | undefined): StoredResponse | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (this.now() - entry.storedAt > this.limits.ttlMs) {
      this.delete(id);
      return undefined;
    }
    if (entry.stored.ownerKey !== ownerKey) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry.stored;
  }

  /** An output item of a held response that belongs to `ownerKey`. */
  findItem(itemId: string, ownerKey: string | undefined): ResponseOutputItem | undefined {
    const responseId = this.itemOwners.get(itemId);
    if (responseId === undefined) return undefined;
    return this.get(responseId, ownerKey)?.response.output.find((item) => item.id === itemId);
  }

  delete(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    for (const item of entry.stored.response.output) {
      if (this.itemOwners.get(item.id) === id) this.itemOwners.delete(item.id);
    }
    this.totalBytes -= entry.bytes;
  }

  private evict(): void {
    const now = this.now();
    for (const [id, entry] of this.entries) {
      const overCap =
        this.entries.size > this.limits.maxEntries || this.totalBytes > this.limits.maxBytes;
      // Map order is least recently used first, so expired or excess entries sit at the front.
      if (!overCap && now - entry.storedAt <= this.limits.ttlMs) break;
      this.delete(id);
    }
  }
}

/** What a stored response costs to hold, near enough (the byte cap counts this). */
export function estimateStoredBytes(stored: StoredResponse): number {
  let characters = 256;
  for (const message of stored.messages) {
    characters += message.content.length + 32;
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? [])
        characters += call.arguments.length + call.name.length + 32;
    }
  }
  for (const item of stored.response.output) {
    characters +=
      item.type === "message"
        ? (item.content[0]?.text.length ?? 0)
        : item.type === "function_call"
          ? item.arguments.length
          : item.type === "reasoning"
            ? (item.content[0]?.text.length ?? 0)
            : item.input.length;
  }
  // JavaScript strings are UTF-16: two bytes a character.
  return characters * 2;
}
