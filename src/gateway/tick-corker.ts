// Batches a connection's writes per tick: the first write of a tick corks the socket, and it is
// uncorked once the current burst of work ends (nextTick), so the events one engine burst
// produces leave in one system call instead of one each, and no event waits for a timer.

export interface Corkable {
  cork(): void;
  uncork(): void;
  readonly destroyed: boolean;
}

export function createTickCorker(stream: Corkable): () => void {
  let corked = false;
  const uncork = (): void => {
    corked = false;
    if (!stream.destroyed) stream.uncork();
  };
  return () => {
    if (corked) return;
    corked = true;
    stream.cork();
    process.nextTick(uncork);
  };
}
