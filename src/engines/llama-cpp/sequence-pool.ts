// Hands out the context's sequences: a sessionKey keeps its sequence (and so its KV cache) across
// turns; any other request goes to the sequence already holding most of its prompt (see
// choose-sequence.ts), so a client that resends the whole conversation without a key reuses it too.
// A sequence whose cache another cache scope (tenant) left behind is handed out marked to be
// cleared first, and is never matched by prefix.
import { SparkError } from "../../protocol/spark-error.ts";
import {
  chooseSequence,
  type PoolPrompt,
  type PooledSequence,
  type SequenceCacheReader,
  type SequenceChoice,
} from "./choose-sequence.ts";

export type { PoolPrompt, SequenceCacheReader, SequenceChoice };

export interface AcquireOptions {
  /** While the session's own sequence is busy, wait for it instead of taking another. */
  waitForOwn?: boolean;
  /** The request's prompt: without an own sequence, the one whose cache it continues is taken. */
  prompt?: PoolPrompt;
}

interface Waiter<Sequence> {
  sessionKey: string | undefined;
  scope: string | undefined;
  options: AcquireOptions;
  resolve: (lease: SequenceLease<Sequence>) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export interface SequenceLease<Sequence> {
  sequence: Sequence;
  /** Why this sequence: the session's own, one the prompt continues, a free one, … */
  choice: SequenceChoice;
  /** True when another cache scope used it last: its cache must be cleared before evaluation. */
  foreignCache: boolean;
  /** The prompt the sequence's cache now holds, when it differs from the one it was acquired for. */
  recordPrompt(prompt: PoolPrompt): void;
  release(): void;
}

/** How long acquireBeforeOthers holds every other request back at most (ms). */
const DEFAULT_MAX_HOLD_MS = 1_000;

export class SequencePool<Sequence> {
  private readonly entries: PooledSequence<Sequence>[];
  private readonly waiters: Waiter<Sequence>[] = [];
  private useCounter = 0;
  /** A lease of acquireBeforeOthers is out: no other request gets a sequence until it ends. */
  private heldBeforeOthers = false;

  /**
   * `count` sequences, made by `createSequence` (node-llama-cpp's, or the native loop's), whose
   * caches `cache` reads to match prompts.
   */
  constructor(
    count: number,
    createSequence: () => Sequence,
    private readonly cache: SequenceCacheReader<Sequence>,
  ) {
    this.entries = [];
    for (let index = 0; index < count; index += 1) {
      this.entries.push({
        sequence: createSequence(),
        sessionKey: undefined,
        scope: undefined,
        used: false,
        busy: false,
        lastUsedAt: 0,
        stableLength: 0,
      });
    }
  }

  get size(): number {
    return this.entries.length;
  }

  get busyCount(): number {
    return this.entries.filter((entry) => entry.busy).length;
  }

  async acquire(
    sessionKey: string | undefined,
    scope: string | undefined,
    signal?: AbortSignal,
    options: AcquireOptions = {},
  ): Promise<SequenceLease<Sequence>> {
    const lease = this.tryAcquire(sessionKey, scope, options);
    if (lease !== undefined) return lease;
    if (signal?.aborted) throw SparkError.from(signal.reason, "cancelled");
    return new Promise<SequenceLease<Sequence>>((resolve, reject) => {
      const waiter: Waiter<Sequence> = {
        sessionKey,
        scope,
        options,
        resolve,
        reject,
        signal,
        onAbort: () => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          reject(
            new SparkError(
              "cancelled",
              "The request was cancelled while waiting for a free sequence.",
            ),
          );
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /**
   * A sequence at once (undefined when none is idle or requests already wait), and every other
   * request waits until it is released: a short job as the engine opens (the prefix cache's warm
   * start) whose result the first requests should find, not race on another sequence. After
   * `maxHoldMs` (a cold disk, a huge state) the others go on without it, on the other sequences.
   */
  acquireBeforeOthers(
    sessionKey: string | undefined,
    scope: string | undefined,
    options: AcquireOptions = {},
    maxHoldMs = DEFAULT_MAX_HOLD_MS,
  ): SequenceLease<Sequence> | undefined {
    if (this.waiters.length > 0 || this.heldBeforeOthers) return undefined;
    const lease = this.tryAcquire(sessionKey, scope, options);
    if (lease === undefined) return undefined;
    this.heldBeforeOthers = true;
    let holding = true;
    const stopHolding = (): void => {
      if (!holding) return;
      holding = false;
      clearTimeout(timer);
      this.heldBeforeOthers = false;
    };
    const timer = setTimeout(() => {
      stopHolding();
      this.wakeWaiters();
    }, maxHoldMs);
    timer.unref();
    return {
      ...lease,
      release: () => {
        stopHolding();
        lease.release();
        this.wakeWaiters();
      },
    };
  }

  /** Every waiter that can run now (several sequences may have become free at once). */
  private wakeWaiters(): void {
    while (this.waiters.length > 0 && this.wakeWaiter()) {
      // Each call hands out one sequence.
    }
  }

  private tryAcquire(
    sessionKey: string | undefined,
    scope: string | undefined,
    options: AcquireOptions,
  ): SequenceLease<Sequence> | undefined {
    if (
      options.waitForOwn === true &&
      sessionKey !== undefined &&
      this.entries.some(
        (entry) => entry.busy && entry.sessionKey === sessionKey && entry.scope === scope,
      )
    )
      return undefined;
    if (this.heldBeforeOthers) return undefined;
    // A busy sequence is never taken, however much of the prompt it holds.
    const idle = this.entries.filter((entry) => !entry.busy);
    if (idle.length === 0) return undefined;
    const { entry: chosen, choice } = chooseSequence(idle, {
      sessionKey,
      scope,
      prompt: options.prompt,
      cache: this.cache,
    });
    chosen.busy = true;
    chosen.lastUsedAt = ++this.useCounter;
    const foreignCache = chosen.used && chosen.scope !== scope;
    chosen.sessionKey = sessionKey;
    chosen.scope = scope;
    chosen.used = true;
    chosen.stableLength = options.prompt?.stableLength ?? 0;
    let released = false;
    return {
      sequence: chosen.sequence,
      choice,
      foreignCache,
      recordPrompt: (prompt) => {
        chosen.stableLength = prompt.stableLength;
      },
      release: () => {
        if (released) return;
        released = true;
        chosen.busy = false;
        this.wakeWaiter();
      },
    };
  }

  /** The first waiter that can run now (one waiting for its own busy sequence may not). */
  private wakeWaiter(): boolean {
    for (const [index, waiter] of this.waiters.entries()) {
      const lease = this.tryAcquire(waiter.sessionKey, waiter.scope, waiter.options);
      if (lease === undefined) continue;
      this.waiters.splice(index, 1);
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.resolve(lease);
      return true;
    }
    return false;
  }

  rejectWaiters(error: SparkError): void {
    for (const waiter of this.waiters.splice(0)) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(error);
    }
  }
}
