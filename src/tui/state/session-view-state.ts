// The terminal UI's picture of one session, folded from its events: a pure reducer, so the whole
// transcript logic is tested without a terminal and the hook only batches and stores. A batch
// copies the state once and folds its actions into that copy, so a frame of 200 deltas costs one
// array copy, not 200.
import type { HistoryItem, SessionSummary } from "../../protocol/agent/agent-methods.ts";
import type { SessionEvent, SessionStatus } from "../../protocol/agent/session-events.ts";
import type { TranscriptItem } from "./transcript-item.ts";
import { errorItemFields } from "./transcript-item.ts";
import { formatTokens } from "../../protocol/transcript/index.ts";
import {
  addLastAnswerToContext,
  countDelta,
  finishRate,
  recordBudget,
  startTurnMetrics,
  type StreamMetrics,
} from "./stream-metrics.ts";
import { appendAnswerText } from "./answer-lines.ts";
import { finishToolCall, showLastCommandOutput } from "./tool-call-items.ts";
import { append, finishLive, takeId } from "./transcript-draft.ts";
import { terminalSafeData, terminalSafeText } from "./terminal-text.ts";

export interface PendingApproval {
  approvalId: string;
  command: string;
  cwd: string;
}

export interface EditRecord {
  path: string;
  editKind: "add" | "delete" | "update" | "move";
  unifiedDiff: string;
  linesAdded: number;
  linesRemoved: number;
  undoEntryId: string;
}

export type { StreamMetrics } from "./stream-metrics.ts";

export interface SessionViewState {
  sessionId: string;
  model: string | undefined;
  status: SessionStatus;
  finished: TranscriptItem[];
  live: TranscriptItem | undefined;
  pendingApproval: PendingApproval | undefined;
  /** Edits applied and not undone, oldest first (what /diff shows). */
  edits: EditRecord[];
  metrics: StreamMetrics;
  /** Queued messages an interrupt dropped: the input box takes them back. */
  returnedInput: string | undefined;
  nextItemId: number;
  /** turn-started events seen: the message queue waits for its turn to have begun. */
  turnsStarted: number;
}

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

const DECISION_WORDS = {
  approve: "approved",
  always: "approved, and this exact command from now on in this session",
  deny: "denied",
  cancelled: "cancelled",
} as const;

function applyEvent(draft: SessionViewState, event: SessionEvent, at: number): void {
  switch (event.type) {
    case "session-started":
      if (event.model !== undefined) draft.model = event.model;
      // Only the missing sandbox is news: it changes which commands ask.
      if (event.commandSandbox?.kind === "none") {
        const text = `command sandbox: ${event.commandSandbox.description}`;
        // Said once: a resume's own session-started repeats what spark said when it started.
        if (!draft.finished.some((item) => item.kind === "notice" && item.text === text))
          append(draft, { kind: "notice", text, tone: "warning" });
      }
      return;
    case "turn-started":
      draft.turnsStarted += 1;
      startTurnMetrics(draft.metrics, at);
      finishLive(draft);
      append(draft, { kind: "user", text: event.text });
      return;
    case "user-message":
      finishLive(draft);
      append(draft, { kind: "user", text: event.text, via: event.via });
      return;
    case "text-delta":
      countDelta(draft.metrics, at);
      draft.metrics.charactersSinceBudget += event.text.length;
      appendAnswerText(draft, event.text);
      return;
    case "tool-call":
      draft.metrics.charactersSinceBudget += event.arguments.length;
      finishLive(draft);
      draft.live = {
        kind: "tool-call",
        id: takeId(draft),
        callId: event.callId,
        name: event.name,
        summary: event.summary,
        status: "running",
      };
      return;
    case "tool-result":
      finishToolCall(draft, event.callId, event.isError, event.durationMs, event.output);
      return;
    case "edit-applied":
      finishToolCall(draft, event.callId, false, undefined, "");
      append(draft, {
        kind: "edit",
        path: event.path,
        editKind: event.kind,
        ...(event.movedFrom === undefined ? {} : { movedFrom: event.movedFrom }),
        unifiedDiff: event.unifiedDiff,
        linesAdded: event.linesAdded,
        linesRemoved: event.linesRemoved,
      });
      draft.edits.push({
        path: event.path,
        editKind: event.kind,
        unifiedDiff: event.unifiedDiff,
        linesAdded: event.linesAdded,
        linesRemoved: event.linesRemoved,
        undoEntryId: event.undoEntryId,
      });
      return;
    case "edit-undone":
      finishLive(draft);
      append(draft, { kind: "undo", files: event.files });
      draft.edits = draft.edits.filter((edit) => edit.undoEntryId !== event.undoEntryId);
      return;
    case "budget":
      recordBudget(draft.metrics, event.usedTokens, event.windowTokens);
      return;
    case "context-compacted":
      // Every attached client shows it, the one that asked (/compact) included.
      draft.metrics.contextTokens = event.tokensAfter;
      draft.metrics.windowTokens = event.windowTokens;
      append(draft, {
        kind: "notice",
        text: `Compacted older turns: ${formatTokens(event.tokensBefore)} → ${formatTokens(event.tokensAfter)} tokens.`,
        tone: "info",
      });
      return;
    case "interrupted":
      if (draft.live?.kind === "assistant") draft.live = { ...draft.live, interrupted: true };
      finishLive(draft);
      append(draft, { kind: "interrupted", reason: event.reason });
      if (event.discardedQueue.length > 0) draft.returnedInput = event.discardedQueue.join("\n");
      return;
    case "turn-finished":
      finishLive(draft);
      draft.metrics.cachedPromptTokens = event.usage.cachedInputTokens;
      draft.metrics.timeToFirstTokenMs ??= event.timings.timeToFirstTokenMs;
      finishRate(draft.metrics, event.usage.outputTokens, event.timings);
      addLastAnswerToContext(draft.metrics, event.steps, event.usage.outputTokens);
      if (event.reason === "max_steps")
        append(draft, {
          kind: "error",
          message: `The turn stopped after ${event.steps} model calls (its max steps).`,
        });
      return;
    case "error":
      finishLive(draft);
      append(draft, { kind: "error", ...errorItemFields(event.error) });
      return;
    case "approval-requested":
      // The command waiting for the answer stays live, so its result still finds it.
      if (draft.live?.kind !== "tool-call") finishLive(draft);
      draft.pendingApproval = {
        approvalId: event.approvalId,
        command: event.command,
        cwd: event.cwd,
      };
      return;
    case "approval-resolved":
      if (draft.pendingApproval?.approvalId === event.approvalId) draft.pendingApproval = undefined;
      append(draft, {
        kind: "notice",
        text: `Command ${DECISION_WORDS[event.decision]}.`,
        tone: "info",
      });
      return;
    case "status-changed":
      draft.status = event.status;
      return;
    case "model-changed":
      draft.model = event.model;
      return;
    default:
      // A newer server's event type: nothing to show, nothing to break.
      return;
  }
}
