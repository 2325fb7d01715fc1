// The pool's choice of sequence, on fake sequences whose "KV cache" is a token list: the session's
// own, then the one a prompt continues, a free one before cutting another conversation short, the
// longest shared prefix when full, and never a busy sequence or another scope's cache.
import type { Token } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { SequencePool, type PoolPrompt, type SequenceLease } from "./sequence-pool.ts";

interface FakeSequence {
  id: number;
  cached: Token[];
}

function createPool(count: number): SequencePool<FakeSequence> {
  let next = 0;
  return new SequencePool<FakeSequence>(count, () => ({ id: next++, cached: [] }), {
    cachedLength: (sequence) => sequence.cached.length,
    sharedPrefixLength: (sequence, tokens) => {
      let index = 0;
      while (index < sequence.cached.length && sequence.cached[index] === tokens[index]) index += 1;
      return index;
    },
  });
}

/** `count` tokens counting up from `start`: two conversations differ by their start. */
function tokens(start: number, count: number): Token[] {
  return Array.from({ length: count }, (_, index) => (start + index) as Token);
}

function chat(promptTokens: Token[]): PoolPrompt {
  return { tokens: promptTokens, stableLength: promptTokens.length };
}

/** Runs a request to its end: the sequence caches its prompt and a reply, then is released. */
async function serve(
  pool: SequencePool<FakeSequence>,
  prompt: PoolPrompt,
  options: { sessionKey?: string; scope?: string; reply?: Token[] } = {},
): Promise<SequenceLease<FakeSequence>> {
  const lease = await pool.acquire(options.sessionKey, options.scope ?? "tenant-a", undefined, {
    prompt,
  });
  if (lease.foreignCache) lease.sequence.cached = [];
  lease.sequence.cached = [...prompt.tokens, ...(options.reply ?? tokens(9000, 5))];
  lease.release();
  return lease;
}

describe("SequencePool", () => {
  it("gives a prompt without a key the sequence whose conversation it continues", async () => {
    const pool = createPool(4);
    const first = tokens(0, 100);
    const reply = tokens(500, 20);
    const one = await serve(pool, chat(first), { reply });
    // An unrelated conversation in between takes a free sequence and leaves the first alone.
    const other = await serve(pool, chat(tokens(1000, 80)));
    expect(other.sequence.id).not.toBe(one.sequence.id);
    expect(other.choice).toBe("free");
    const two = await serve(pool, chat([...first, ...reply, ...tokens(2000, 10)]));
    expect(two.sequence.id).toBe(one.sequence.id);
    expect(two.choice).toBe("continued");
  });

  it("counts a follow-up whose rendering differs in the last few tokens as continuing", async () => {
    const pool = createPool(2);
    const first = tokens(0, 200);
    const one = await serve(pool, chat(first));
    const rerendered = [...first.slice(0, 195), ...tokens(3000, 40)];
    expect((await serve(pool, chat(rerendered))).sequence.id).toBe(one.sequence.id);
  });

  it("a fork of another conversation takes a free sequence while there is one", async () => {
    const pool = createPool(3);
    const systemPrompt = tokens(0, 90);
    const sessionA = await serve(pool, chat([...systemPrompt, ...tokens(100, 10)]), {
      sessionKey: "a",
    });
    const sessionB = await serve(pool, chat([...systemPrompt, ...tokens(200, 10)]), {
      sessionKey: "b",
    });
    expect(sessionB.choice).toBe("free");
    expect(sessionB.sequence.id).not.toBe(sessionA.sequence.id);
    // Each session then keeps its own: no ping-pong over the shared system prompt.
    const againA = await serve(pool, chat([...systemPrompt, ...tokens(100, 30)]), {
      sessionKey: "a",
    });
    expect(againA.sequence.id).toBe(sessionA.sequence.id);
    expect(againA.choice).toBe("own");
  });

  it("when every sequence was used, takes the longest shared prefix if it keeps most of that cache, else the least recently used", async () => {
    const pool = createPool(2);
    const systemPrompt = tokens(0, 90);
    const older = await serve(pool, chat(tokens(5000, 100)));
    const recent = await serve(pool, chat([...systemPrompt, ...tokens(100, 10)]));
    const fork = await serve(pool, chat([...systemPrompt, ...tokens(300, 10)]));
    expect(fork.choice).toBe("shared-prefix");
    expect(fork.sequence.id).toBe(recent.sequence.id);
    // Sharing only a few tokens with each: the least recently used goes, not the more recent one.
    const unrelated = await serve(pool, chat([...tokens(0, 3), ...tokens(7000, 100)]));
    expect(unrelated.choice).toBe("least-recently-used");
    expect(unrelated.sequence.id).toBe(older.sequence.id);
  });

  it("never takes a busy sequence, however much of the prompt it holds", async () => {
    const pool = createPool(2);
    const first = tokens(0, 100);
    const one = await serve(pool, chat(first));
    const busy = await pool.acquire(undefined, "tenant-a", undefined, { prompt: chat(first) });
    expect(busy.sequence.id).toBe(one.sequence.id);
    const meanwhile = await pool.acquire(undefined, "tenant-a", undefined, {
      prompt: chat([...first, ...tokens(9000, 5), ...tokens(100, 5)]),
    });
    expect(meanwhile.sequence.id).not.toBe(one.sequence.id);
    busy.release();
    meanwhile.release();
  });

  it("never matches another tenant's cache, and hands it over marked to be cleared", async () => {
    const pool = createPool(2);
    const secret = tokens(0, 100);
    const alice = await serve(pool, chat(secret), { scope: "alice" });
    await serve(pool, chat(tokens(4000, 50)), { scope: "alice" });
    // Mallory sends Alice's whole prompt: no sequence is matched by prefix across tenants.
    const mallory = await pool.acquire(undefined, "mallory", undefined, { prompt: chat(secret) });
    expect(mallory.choice).toBe("least-recently-used");
    expect(mallory.foreignCache).toBe(true);
    expect(mallory.sequence.id).toBe(alice.sequence.id);
    mallory.release();
  });

  it("keeps a session's own sequence first, and a waiter for its own waits", async () => {
    const pool = createPool(2);
    const mine = await serve(pool, chat(tokens(0, 50)), { sessionKey: "doc" });
    const held = await pool.acquire("doc", "tenant-a", undefined, { prompt: chat(tokens(0, 60)) });
    expect(held.sequence.id).toBe(mine.sequence.id);
    let waited: SequenceLease<FakeSequence> | undefined;
    const waiting = pool
      .acquire("doc", "tenant-a", undefined, { waitForOwn: true, prompt: chat(tokens(0, 61)) })
      .then((lease) => (waited = lease));
    await Promise.resolve();
    expect(waited).toBeUndefined();
    held.release();
    await waiting;
    expect(waited?.sequence.id).toBe(mine.sequence.id);
    waited?.release();
  });

  it("holds every request back while a sequence is taken before others; then each finds its own", async () => {
    const pool = createPool(2);
    const loaded = pool.acquireBeforeOthers(undefined, undefined);
    expect(loaded?.choice).toBe("free");
    expect(pool.acquireBeforeOthers(undefined, undefined)).toBeUndefined();
    const resolved: string[] = [];
    const continuing = pool.acquire(undefined, undefined, undefined, {
      prompt: chat(tokens(0, 50)),
    });
    const other = pool.acquire(undefined, undefined, undefined, { prompt: chat(tokens(700, 50)) });
    void continuing.then(() => resolved.push("continuing"));
    void other.then(() => resolved.push("other"));
    await new Promise((resolve) => setImmediate(resolve));
    // A free sequence is idle, yet neither request got it.
    expect(resolved).toEqual([]);
    // What the first lease loaded (a state read from disk, not the prompt it was acquired for).
    loaded!.sequence.cached = tokens(0, 40);
    loaded!.recordPrompt(chat(tokens(0, 40)));
    loaded!.release();
    const [first, second] = await Promise.all([continuing, other]);
    expect(first.sequence.id).toBe(loaded!.sequence.id);
    expect(first.choice).toBe("continued");
    expect(second.sequence.id).not.toBe(loaded!.sequence.id);
    expect(second.choice).toBe("free");
  });

  it("lets the others go on other sequences when a sequence taken before them is held too long", async () => {
    const pool = createPool(2);
    const slow = pool.acquireBeforeOthers(undefined, undefined, {}, 30);
    const waiting = pool.acquire(undefined, undefined, undefined, { prompt: chat(tokens(0, 50)) });
    const other = await waiting;
    // The held sequence is still busy: the request got the other one.
    expect(other.sequence.id).not.toBe(slow!.sequence.id);
    expect(other.choice).toBe("free");
    other.release();
    slow!.release();
    expect((await pool.acquire(undefined, undefined)).sequence.id).toBe(slow!.sequence.id);
  });
});
