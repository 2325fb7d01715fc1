// The response store's three bounds: entry count (least recently used first), bytes, and age.
import { describe, expect, it } from "vitest";
import type { ResponseObject } from "../../protocol/responses-events.ts";
import { ResponseStore, type StoredResponse } from "./response-store.ts";

function stored(id: string, text = "hi", ownerKey?: string): StoredResponse {
  return {
    id,
    response: { id, output: [] } as unknown as ResponseObject,
    messages: [{ role: "user", content: text }],
    sessionKey: id,
    ownerKey,
  };
}

describe("ResponseStore", () => {
  it("evicts the least recently used entry past the entry cap", () => {
    const store = new ResponseStore({ maxEntries: 2, maxBytes: 1e9, ttlMs: 1e9 });
    store.put(stored("a"));
    store.put(stored("b"));
    expect(store.get("a", undefined)?.id).toBe("a");
    store.put(stored("c"));
    expect(store.get("b", undefined)).toBeUndefined();
    expect(store.get("a", undefined)?.id).toBe("a");
    expect(store.get("c", undefined)?.id).toBe("c");
  });

  it("evicts past the byte cap, and never keeps one entry larger than the whole store", () => {
    const store = new ResponseStore({ maxEntries: 100, maxBytes: 10_000, ttlMs: 1e9 });
    store.put(stored("a", "x".repeat(3000)));
    store.put(stored("b", "x".repeat(3000)));
    expect(store.get("a", undefined)).toBeUndefined();
    expect(store.bytes).toBeLessThanOrEqual(10_000);
    store.put(stored("huge", "x".repeat(20_000)));
    expect(store.get("huge", undefined)).toBeUndefined();
    expect(store.get("b", undefined)?.id).toBe("b");
  });

  it("expires entries after the TTL", () => {
    let now = 0;
    const store = new ResponseStore({ maxEntries: 100, maxBytes: 1e9, ttlMs: 1000 }, () => now);
    store.put(stored("a"));
    now = 999;
    expect(store.get("a", undefined)?.id).toBe("a");
    now = 2000;
    expect(store.get("a", undefined)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it("only gives a response to the key that created it", () => {
    const store = new ResponseStore({ maxEntries: 100, maxBytes: 1e9, ttlMs: 1e9 });
    store.put(stored("a", "hi", "sk-1"));
    expect(store.get("a", "sk-2")).toBeUndefined();
    expect(store.get("a", undefined)).toBeUndefined();
    expect(store.get("a", "sk-1")?.id).toBe("a");
  });
});
