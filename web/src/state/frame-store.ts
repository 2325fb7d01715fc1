// A state value replaced on every change, whose listeners hear at most once per frame however
// many changes the frame held (a 5,000 tokens/s stream renders once per frame, not per token).
export class FrameStore<State extends object> {
  private readonly listeners = new Set<() => void>();
  private frameScheduled = false;

  constructor(
    protected state: State,
    private readonly scheduleFrame: (callback: () => void) => void,
  ) {}

  getState(): State {
    return this.state;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected update(change: Partial<State>): void {
    this.state = { ...this.state, ...change };
    if (this.frameScheduled) return;
    this.frameScheduled = true;
    this.scheduleFrame(() => {
      this.frameScheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}
