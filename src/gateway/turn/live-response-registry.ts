// The WebSocket responses that can still be resumed: generating ones, and finished ones for a
// grace period. A response whose client dropped keeps generating for the grace period, then is
// stopped so the engine is freed.
import type { LiveResponse } from "./live-response.ts";

export class LiveResponseRegistry {
  private readonly responses = new Map<string, LiveResponse>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly graceMs: number) {}

  get size(): number {
    return this.responses.size;
  }

  add(live: LiveResponse): void {
    this.responses.set(live.id, live);
    void live.finished.then(() => this.afterFinish(live));
  }

  /** The response for a resume by `ownerKey`, if it is still held. */
  get(id: string, ownerKey: string | undefined): LiveResponse | undefined {
    const live = this.responses.get(id);
    return live !== undefined && live.ownerKey === ownerKey ? live : undefined;
  }

  /** Forgets a response that never ran. */
  remove(live: LiveResponse): void {
    this.responses.delete(live.id);
    this.clearTimer(live.id);
  }

  /** Its client dropped: keep generating for the grace period unless someone resumes it. */
  orphaned(live: LiveResponse): void {
    if (live.done) return;
    if (this.graceMs <= 0) {
      live.stop("disconnected");
      return;
    }
    this.clearTimer(live.id);
    const timer = setTimeout(() => {
      this.timers.delete(live.id);
      if (!live.attached) live.stop("disconnected");
    }, this.graceMs);
    timer.unref();
    this.timers.set(live.id, timer);
  }

  /**
   * A drain's grace period ended: each response still generating is left as a killed replica
   * leaves it (its log without an end, no stored result), for another replica to continue.
   * Returns how many were handed over.
   */
  handOverAll(): number {
    let count = 0;
    for (const live of this.responses.values()) {
      if (live.done) continue;
      live.handOver();
      count += 1;
    }
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    return count;
  }

  /** Stops everything (server shutdown). */
  stopAll(): void {
    for (const live of this.responses.values()) live.stop("disconnected");
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private afterFinish(live: LiveResponse): void {
    this.clearTimer(live.id);
    if (this.graceMs <= 0) {
      this.responses.delete(live.id);
      return;
    }
    // A client whose socket dropped just before the end can still fetch the tail.
    const timer = setTimeout(() => {
      this.timers.delete(live.id);
      this.responses.delete(live.id);
    }, this.graceMs);
    timer.unref();
    this.timers.set(live.id, timer);
  }

  private clearTimer(id: string): void {
    const timer = this.timers.get(id);
    if (timer !== undefined) clearTimeout(timer);
    this.timers.delete(id);
  }
}
