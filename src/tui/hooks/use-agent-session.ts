// Subscribes to one session through the agent protocol and keeps its view state: events are
// queued as they arrive and folded once per frame, so a 5,000 tokens/s stream costs at most
// ~30 renders a second. Attaching shows a resumed session's history, folded from its logged
// events like live ones.
import { useCallback, useEffect, useRef, useState } from "react";
import type { AgentProtocolClient } from "../../protocol/agent/agent-protocol-client.ts";
import type { SessionEvent } from "../../protocol/agent/session-events.ts";
import {
  foldSessionView,
  initialSessionViewState,
  type SessionViewAction,
  type SessionViewState,
} from "../state/session-view-state.ts";

/** ~30 frames a second: the most the live item re-renders. */
export const FRAME_MS = 33;

export interface AgentSessionView {
  state: SessionViewState;
  /** Adds a local action (a notice, an error) to the next frame. */
  dispatch: (action: SessionViewAction) => void;
  /**
   * Makes the next switch to `sessionId` (one this view left) come back to its state as it was
   * left, replaying only the events since: nothing is drawn again. Returns how many finished
   * items that state holds (already in the terminal), or undefined when there is none kept.
   */
  restore: (sessionId: string, then: SessionViewAction[]) => number | undefined;
}

export interface AgentSessionOptions {
  frameMs?: number;
  /** The attach failed (e.g. another process owns the session): instead of an error item. */
  onAttachFailed?: (sessionId: string, error: unknown) => void;
}

export function useAgentSession(
  client: AgentProtocolClient,
  sessionId: string,
  options: AgentSessionOptions = {},
): AgentSessionView {
  const frameMs = options.frameMs ?? FRAME_MS;
  const [stored, setState] = useState(() => initialSessionViewState(sessionId));
  /** The state each session was left in, and the one session to come back to as it was. */
  const leftStates = useRef(new Map<string, SessionViewState>());
  const restoring = useRef<string | undefined>(undefined);
  /** Shown once the restored session is back (why the switch did not happen). */
  const afterRestore = useRef<SessionViewAction[]>([]);
  const startState = (id: string): SessionViewState =>
    (restoring.current === id ? leftStates.current.get(id) : undefined) ??
    initialSessionViewState(id);
  // A switch shows the new session's start state in the very render that switches: the old
  // session's items must never reach the new session's <Static> (it would print them again).
  const state = stored.sessionId === sessionId ? stored : startState(sessionId);
  const latestState = useRef(state);
  latestState.current = state;
  /** As folded, whichever session the render is for: what a session is left in. */
  const latestStored = useRef(stored);
  latestStored.current = stored;
  const onAttachFailed = useRef(options.onAttachFailed);
  onAttachFailed.current = options.onAttachFailed;
  /** Sessions this view has shown before: their events were seen, so they come back as history. */
  const shownBefore = useRef(new Set<string>());
  const queue = useRef<SessionViewAction[]>([]);
  const timer = useRef<NodeJS.Timeout | undefined>(undefined);
  const lastFlushAt = useRef(0);

  const flush = useCallback(() => {
    timer.current = undefined;
    lastFlushAt.current = performance.now();
    const batch = queue.current;
    queue.current = [];
    if (batch.length > 0) setState((previous) => foldSessionView(previous, batch));
  }, []);

  const dispatch = useCallback(
    (action: SessionViewAction) => {
      queue.current.push(action);
      if (timer.current !== undefined) return;
      const wait = Math.max(0, lastFlushAt.current + frameMs - performance.now());
      timer.current = setTimeout(flush, wait);
    },
    [flush, frameMs],
  );

  useEffect(() => {
    const restored = restoring.current === sessionId;
    restoring.current = undefined;
    if (restored) for (const action of afterRestore.current.splice(0)) dispatch(action);
    setState(latestState.current);
    // Back to a session this view showed earlier: its events were seen (the client skips them if
    // replayed), so ask for its history from the log instead, as for a session never seen. A
    // restored state has them already and needs only what came since.
    const returning = shownBefore.current.has(sessionId) && !restored;
    shownBefore.current.add(sessionId);
    // Events replayed by the attach arrive before its answer, which carries the history of a
    // resumed session: they wait for it, so the history comes first.
    let heldUntilAttached: SessionViewAction[] | undefined = [];
    const unsubscribe = client.onSessionEvent((notification) => {
      if (notification.sessionId !== sessionId) return;
      const action: SessionViewAction = {
        type: "session-event",
        event: notification.event,
        at: performance.now(),
      };
      if (heldUntilAttached === undefined) dispatch(action);
      else heldUntilAttached.push(action);
    });
    const releaseHeld = (): void => {
      for (const action of heldUntilAttached ?? []) dispatch(action);
      heldUntilAttached = undefined;
    };
    // From the last event this client saw (0: all the server still holds); a session loaded from
    // its log answers with its history instead.
    client
      .request(
        "session/attach",
        returning ? { sessionId } : { sessionId, lastSequence: client.lastSequence(sessionId) },
      )
      .then((result) => {
        const resumed = result.historyEvents !== undefined || result.history !== undefined;
        // A session this UI just started has only its session-started event so far.
        const isNew = !resumed && (result.session.lastSequence ?? 0) <= 1;
        if (!restored)
          dispatch({
            type: "attached",
            session: result.session,
            how: resumed ? "resumed" : isNew ? "new" : "joined",
          });
        if (result.historyEvents !== undefined)
          dispatch({ type: "history-events", events: result.historyEvents as SessionEvent[] });
        else if (result.history !== undefined) dispatch({ type: "history", items: result.history });
        releaseHeld();
        dispatch({
          type: "summary",
          status: result.session.status,
          ...(result.session.model === undefined ? {} : { model: result.session.model }),
        });
      })
      .catch((error: unknown) => {
        releaseHeld();
        if (onAttachFailed.current === undefined) dispatch(errorAction(error));
        else onAttachFailed.current(sessionId, error);
      });
    return () => {
      // Already rendering the next session: the stored state is still this one's.
      if (latestStored.current.sessionId === sessionId)
        leftStates.current.set(sessionId, latestStored.current);
      unsubscribe();
      clearTimeout(timer.current);
      timer.current = undefined;
      queue.current = [];
      if (!client.isClosed) client.request("session/detach", { sessionId }).catch(() => undefined);
    };
  }, [client, sessionId, dispatch]);

  useEffect(() => () => clearTimeout(timer.current), []);

  const restore = useCallback((id: string, then: SessionViewAction[]): number | undefined => {
    const left = leftStates.current.get(id);
    if (left === undefined) return undefined;
    restoring.current = id;
    afterRestore.current = then;
    return left.finished.length;
  }, []);

  return { state, dispatch, restore };
}

export function errorAction(error: unknown): SessionViewAction {
  const code = (error as { code?: unknown }).code;
  return {
    type: "error",
    message: error instanceof Error ? error.message : String(error),
    ...(typeof code === "string" ? { code } : {}),
  };
}
