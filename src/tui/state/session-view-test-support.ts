// What the session view reducer's tests share: folding timed session events from a fresh state,
// and a turn's usage and timings as the agent reports them.
import type { SessionEvent } from "../../protocol/agent/session-events.ts";
import {
  initialSessionViewState,
  reduceSessionView,
  type SessionViewState,
} from "./session-view-state.ts";

/** The view after `events`, each with the time it arrived, from a fresh session "s1". */
export function fold(events: Array<[SessionEvent, number]>): SessionViewState {
  return reduceSessionView(
    initialSessionViewState("s1"),
    ...events.map(([event, at]) => ({ type: "session-event" as const, event, at })),
  );
}

export const usage = { inputTokens: 100, cachedInputTokens: 60, outputTokens: 5 };

export const timings = {
  totalMs: 10,
  modelMs: 8,
  toolMs: 0,
  timeToFirstTokenMs: 3,
  decodeMs: 5,
  decodeTokens: 4,
};
