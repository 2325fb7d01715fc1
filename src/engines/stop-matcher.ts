// Cuts generated text at the first stop sequence, holding back any tail that could still grow
// into one, so no stop text ever reaches the client.

export class StopMatcher {
  private pending = "";

  constructor(private readonly stops: readonly string[]) {}

  /** Adds generated text; returns what is safe to emit and whether a stop sequence was hit. */
  push(text: string): { emit: string; stopped: boolean } {
    this.pending += text;
    if (this.stops.length === 0) return { emit: this.take(this.pending.length), stopped: false };
    let stopIndex = -1;
    for (const stop of this.stops) {
      const index = this.pending.indexOf(stop);
      if (index !== -1 && (stopIndex === -1 || index < stopIndex)) stopIndex = index;
    }
    if (stopIndex !== -1) {
      const emit = this.pending.slice(0, stopIndex);
      this.pending = "";
      return { emit, stopped: true };
    }
    return { emit: this.take(this.pending.length - this.heldBackLength()), stopped: false };
  }

  /** The text held back so far, when generation ends without a stop. */
  flush(): string {
    return this.take(this.pending.length);
  }

  private take(length: number): string {
    const emit = this.pending.slice(0, length);
    this.pending = this.pending.slice(length);
    return emit;
  }

  /** The longest tail of the pending text that is a proper prefix of some stop sequence. */
  private heldBackLength(): number {
    let longest = 0;
    for (const stop of this.stops) {
      for (
        let length = Math.min(stop.length - 1, this.pending.length);
        length > longest;
        length -= 1
      ) {
        if (this.pending.endsWith(stop.slice(0, length))) {
          longest = length;
          break;
        }
      }
    }
    return longest;
  }
}
