// The terminal UI's picture of one session, folded from its events through the fold every surface
// shares (src/protocol/transcript): a pure reducer, so the whole transcript logic is tested without
// a terminal and the hook only batches and stores. A batch copies the rows once and folds its
// actions into that copy, so a frame of 200 deltas copies the rows once, not 200 times.
import type { HistoryItem, SessionSummary } from "../../protocol/agent/agent-methods.ts";
import type { SessionEvent, SessionStatus } from "../../protocol/agent/session-events.ts";
import { emptyTranscript, foldSessionEventWithChanges } from "../../protocol/transcript/index.ts";
import type { SessionViewState } from "./session-view.ts";
import {
  addLastAnswerToContext,
  countDelta,
  finishRate,
  recordBudget,
  startTurnMetrics,
} from "./stream-metrics.ts";
import { showTranscriptChange } from "./show-transcript-change.ts";
import { showLastCommandOutput } from "./tool-call-items.ts";
import { append, finishLive } from "./transcript-draft.ts";
import { terminalSafeData, terminalSafeText } from "./terminal-text.ts";

export type {
  EditRecord,
  PendingApproval,
  SessionViewState,
  StreamMetrics,
} from "./session-view.ts";

export type SessionViewAction =
  | { type: "session-event"; event: SessionEvent; at: number }
  | { type: "notice"; text: string; tone?: "info" | "warning" }
  | { type: "error"; message: string; code?: string }
  | { type: "history"; items: HistoryItem[] }
  /** A resumed session's logged events: shown as they were live, before anything new. */
  | { type: "history-events"; events: SessionEvent[] }
  | { type: "summary"; model?: string; status?: SessionStatus }
  /** This UI attached to the session: its header (workspace, model, id) opens the transcript. */
  | { type: "attached"; session: SessionSummary; how: "new" | "resumed" | "joined" }
  | { type: "input-returned" }
  /** /diff: the session's edits so far (not undone), each as its diff. */
  | { type: "show-edits" }
  /** Ctrl+T, /output: the latest command's whole output. */
  | { type: "show-output" };

export function initialSessionViewState(
  sessionId: string,
  options: { model?: string } = {},
): SessionViewState {
  const { model } = options;
  return {
    sessionId,
    model,
    status: "idle",
    finished: [],
    live: undefined,
    pendingApproval: undefined,
    edits: [],
    metrics: {
      timeToFirstTokenMs: null,
      decodeTokensPerSecond: null,
      contextTokens: null,
      windowTokens: null,
      cachedPromptTokens: null,
      turnStartedAt: null,
      firstDeltaAt: null,
      lastDeltaAt: null,
      deltaCount: 0,
      charactersSinceBudget: 0,
    },
    returnedInput: undefined,
    nextItemId: 1,
    turnsStarted: 0,
    transcript: emptyTranscript,
    eventsFolded: 0,
  };
}

export function reduceSessionView(
  state: SessionViewState,
  ...actions: SessionViewAction[]
): SessionViewState {
  return foldSessionView(state, actions);
}

/** Folds a batch of actions (one frame's worth) into a new state; `state` is left untouched. */
export function foldSessionView(
  state: SessionViewState,
  actions: readonly SessionViewAction[],
): SessionViewState {
  const draft: SessionViewState = {
    ...state,
    finished: [...state.finished],
    edits: [...state.edits],
    metrics: { ...state.metrics },
  };
  for (const action of actions) applyAction(draft, action);
  return draft;
}

function applyAction(draft: SessionViewState, action: SessionViewAction): void {
  switch (action.type) {
    case "session-event":
      // What the model, its tools and files wrote is shown, never obeyed by the terminal.
      applyEvent(draft, terminalSafeData(action.event), action.at);
      return;
    case "notice":
      finishLive(draft);
      append(draft, { kind: "notice", text: action.text, tone: action.tone ?? "info" });
      return;
    case "error":
      finishLive(draft);
      append(draft, {
        kind: "error",
        message: terminalSafeText(action.message),
        ...(action.code === undefined ? {} : { code: action.code }),
      });
      return;
    case "history":
      if (action.items.length > 0)
        append(draft, { kind: "notice", text: "History of this session:", tone: "info" });
      for (const item of action.items)
        append(draft, { kind: "history", role: item.role, text: terminalSafeText(item.text) });
      return;
    case "history-events":
      foldHistoryEvents(draft, action.events);
      return;
    case "attached":
      append(draft, {
        kind: "session-header",
        sessionId: action.session.sessionId,
        cwd: action.session.cwd,
        ...(action.session.model === undefined ? {} : { model: action.session.model }),
        how: action.how,
      });
      return;
    case "summary":
      if (action.model !== undefined) draft.model = action.model;
      if (action.status !== undefined) draft.status = action.status;
      return;
    case "input-returned":
      draft.returnedInput = undefined;
      return;
    case "show-edits":
      finishLive(draft);
      append(draft, {
        kind: "notice",
        tone: "info",
        text:
          draft.edits.length === 0
            ? "No edits in this session yet."
            : `Edits in this session (${draft.edits.length}, oldest first):`,
      });
      for (const edit of draft.edits) append(draft, { kind: "edit", ...edit });
      return;
    case "show-output":
      finishLive(draft);
      showLastCommandOutput(draft);
      return;
    default:
      action satisfies never;
  }
}

function foldHistoryEvents(draft: SessionViewState, events: readonly SessionEvent[]): void {
  if (events.length === 0) return;
  append(draft, { kind: "notice", text: "History of this session:", tone: "info" });
  const returnedInput = draft.returnedInput;
  for (const event of events) {
    // Each start of the session is in its log; only this one (replayed after) is news.
    if (event.type !== "session-started") applyEvent(draft, terminalSafeData(event), 0);
  }
  const live = draft.live;
  if (live?.kind === "tool-call" && live.status === "running") {
    // The log ends inside the call: the session stopped before its result.
    draft.live = { ...live, status: "failed", errorLine: "not finished: the session ended first" };
  }
  finishLive(draft);
  // Past turns say nothing of this one's speed, and what an old interrupt gave back is gone.
  Object.assign(draft.metrics, {
    timeToFirstTokenMs: null,
    decodeTokensPerSecond: null,
    turnStartedAt: null,
    firstDeltaAt: null,
    lastDeltaAt: null,
    deltaCount: 0,
  });
  draft.returnedInput = returnedInput;
}

/**
 * One event: folded by the shared transcript fold, whose changes become rows
 * (show-transcript-change.ts); what only the terminal keeps (stream metrics, the input an
 * interrupt gives back, the turn count) is read from the event here.
 */
function applyEvent(draft: SessionViewState, event: SessionEvent, at: number): void {
  countEvent(draft, event, at);
  draft.eventsFolded += 1;
  const { state, changes } = foldSessionEventWithChanges(
    draft.transcript,
    event,
    draft.eventsFolded,
  );
  draft.transcript = state;
  // Only events that say so set them: the session's summary (on attach) sets them too.
  if (event.type === "model-changed") draft.model = event.model;
  if (event.type === "session-started" && event.model !== undefined) draft.model = event.model;
  if (event.type === "status-changed") draft.status = event.status;
  for (const change of changes) showTranscriptChange(draft, change, event);
  switch (event.type) {
    case "interrupted":
      finishLive(draft);
      append(draft, { kind: "interrupted", reason: event.reason });
      if (event.discardedQueue.length > 0) draft.returnedInput = event.discardedQueue.join("\n");
      return;
    case "turn-finished":
      // A call the turn left running (its result never came) is finished as it stands.
      finishLive(draft);
      return;
    default:
      return;
  }
}

/** The status line's figures: what each event says of the turn's speed and the context's size. */
function countEvent(draft: SessionViewState, event: SessionEvent, at: number): void {
  const { metrics } = draft;
  switch (event.type) {
    case "turn-started":
      draft.turnsStarted += 1;
      startTurnMetrics(metrics, at);
      return;
    case "text-delta":
      countDelta(metrics, at);
      metrics.charactersSinceBudget += event.text.length;
      return;
    case "tool-call":
      metrics.charactersSinceBudget += event.arguments.length;
      return;
    case "budget":
      recordBudget(metrics, event.usedTokens, event.windowTokens);
      return;
    case "context-compacted":
      metrics.contextTokens = event.tokensAfter;
      metrics.windowTokens = event.windowTokens;
      return;
    case "turn-finished":
      metrics.cachedPromptTokens = event.usage.cachedInputTokens;
      metrics.timeToFirstTokenMs ??= event.timings.timeToFirstTokenMs;
      finishRate(metrics, event.usage.outputTokens, event.timings);
      addLastAnswerToContext(metrics, event.steps, event.usage.outputTokens);
      return;
    default:
      return;
  }
}
