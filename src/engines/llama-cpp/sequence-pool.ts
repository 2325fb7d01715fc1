// Hands out the context's sequences: a sessionKey keeps its sequence (and so its KV cache) across
// turns; when every sequence is taken, the least recently used idle one is reclaimed.
import type { LlamaContext, LlamaContextSequence } from "node-llama-cpp";
import { SparkError } from "../../protocol/spark-error.ts";

interface PooledSequence {
  sequence: LlamaContextSequence;
  sessionKey: string | undefined;
  busy: boolean;
  lastUsedAt: number;
}

interface Waiter {
  sessionKey: string | undefined;
  resolve: (lease: SequenceLease) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export interface SequenceLease {
  sequence: LlamaContextSequence;
  /** True when the sequence was last used by this session, so its cache is this session's. */
  reused: boolean;
  release(): void;
}

export class SequencePool {
  private readonly entries: PooledSequence[];
  private readonly waiters: Waiter[] = [];
  private useCounter = 0;

  constructor(
    context: LlamaContext,
    createSequence: (context: LlamaContext) => LlamaContextSequence,
  ) {
    this.entries = [];
    for (let index = 0; index < context.totalSequences; index += 1) {
      this.entries.push({
        sequence: createSequence(context),
        sessionKey: undefined,
        busy: false,
        lastUsedAt: 0,
      });
    }
  }

  get size(): number {
    return this.entries.length;
  }

  get busyCount(): number {
    return this.entries.filter((entry) => entry.busy).length;
  }

  async acquire(sessionKey: string | undefined, signal?: AbortSignal): Promise<SequenceLease> {
    const lease = this.tryAcquire(sessionKey);
    if (lease !== undefined) return lease;
    if (signal?.aborted) throw SparkError.from(signal.reason, "cancelled");
    return new Promise<SequenceLease>((resolve, reject) => {
      const waiter: Waiter = {
        sessionKey,
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

  private tryAcquire(sessionKey: string | undefined): SequenceLease | undefined {
    const idle = this.entries.filter((entry) => !entry.busy);
    if (idle.length === 0) return undefined;
    const own =
      sessionKey === undefined ? undefined : idle.find((entry) => entry.sessionKey === sessionKey);
    // Prefer the session's own sequence, then one no session owns, then the least recently used.
    const chosen =
      own ??
      idle.find((entry) => entry.sessionKey === undefined) ??
      idle.reduce((oldest, entry) => (entry.lastUsedAt < oldest.lastUsedAt ? entry : oldest));
    chosen.busy = true;
    chosen.lastUsedAt = ++this.useCounter;
    const reused = own !== undefined;
    chosen.sessionKey = sessionKey;
    let released = false;
    return {
      sequence: chosen.sequence,
      reused,
      release: () => {
        if (released) return;
        released = true;
        chosen.busy = false;
        this.wakeWaiter();
      },
    };
  }

  private wakeWaiter(): void {
    const waiter = this.waiters.shift();
    if (waiter === undefined) return;
    waiter.signal?.removeEventListener("abort", waiter.onAbort);
    const lease = this.tryAcquire(waiter.sessionKey);
    if (lease === undefined) this.waiters.unshift(waiter);
    else waiter.resolve(lease);
  }

  rejectWaiters(error: SparkError): void {
    for (const waiter of this.waiters.splice(0)) {
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      waiter.reject(error);
    }
  }
}
