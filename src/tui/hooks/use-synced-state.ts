// State that a burst of keys reads as each previous key left it: a ref updated at once (what the
// next key sees) plus React state (what is rendered). A burst arrives in one input event, handled
// by one render's closures, so plain state would show every key of it the state before the burst.
import { useCallback, useRef, useState } from "react";

export interface SyncedState<T> {
  /** As last rendered. */
  rendered: T;
  /** As the last key left it, rendered or not. */
  get: () => T;
  set: (next: T) => void;
}

export function useSyncedState<T>(initial: T): SyncedState<T> {
  const latest = useRef(initial);
  const [rendered, setRendered] = useState(initial);
  const set = useCallback((next: T) => {
    latest.current = next;
    setRendered(next);
  }, []);
  const get = useCallback(() => latest.current, []);
  return { rendered, get, set };
}
