// Time spent in the gateway's own code for one response (parsing, conversation building,
// serialising, sending), kept apart from time spent waiting for the engine.

export class GatewayClock {
  private totalMs = 0;

  /** Adds the time since `startedAt` (a performance.now() reading) to the gateway's share. */
  addSince(startedAt: number): void {
    this.totalMs += performance.now() - startedAt;
  }

  get overheadMs(): number {
    return Math.round(this.totalMs * 1000) / 1000;
  }
}
