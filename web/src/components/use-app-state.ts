// Re-renders a component when the store changed (the store notifies at most once per frame).
import { useEffect, useState } from "preact/hooks";
import type { AppState, AppStore } from "../state/app-store.ts";

export function useAppState(store: AppStore): AppState {
  const [state, setState] = useState(store.getState());
  useEffect(() => {
    setState(store.getState());
    return store.subscribe(() => setState(store.getState()));
  }, [store]);
  return state;
}
