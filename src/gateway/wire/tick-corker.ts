// Batches a connection's writes per tick: the first write of a tick corks the socket, and it is
// uncorked once the current burst of work ends (nextTick), so the events one engine burst
// produces leave in one system call instead of one each, and no event waits for a timer.
// A response's final event leaves at once (`release`): the turn's bookkeeping that follows it
// (store, metrics, log) must not delay the event the client is waiting for.

export interface Corkable {
  cork(): void;
  uncork(): void;
  readonly destroyed: boolean;
}

export interface TickCorker {
  /** Called before each write: corks the stream until the tick ends. */
  hold(): void;
  /** Uncorks now, sending what this tick wrote so far. */
  release(): void;
}

/** The events after which a response's client stops waiting. */
const finalEventTypes: ReadonlySet<string> = new Set([
  "response.completed",
  "response.incomplete",
  "response.failed",
]);

export function isFinalResponseEvent(type: string): boolean {
  return finalEventTypes.has(type);
}

export function createTickCorker(stream: Corkable): TickCorker {
  let corked = false;
  const release = (): void => {
    if (!corked) return;
    corked = false;
    if (!stream.destroyed) stream.uncork();
  };
  return {
    hold() {
      if (corked) return;
      corked = true;
      stream.cork();
      process.nextTick(release);
    },
    release,
  };
}
