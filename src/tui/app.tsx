// The terminal UI's root: the session's transcript, an approval or picker when one is open, the
// input with its suggestions, and the status line. State lives in the hooks; this only composes.
import { Box, useApp, useStdout } from "ink";
import { useCallback, useEffect, useRef, useState } from "react";
import type { AgentProtocolClient } from "../protocol/agent/agent-protocol-client.ts";
import { errorAction, useAgentSession } from "./hooks/use-agent-session.ts";
import type { SessionViewAction } from "./state/session-view-state.ts";
import { useElapsedMs } from "./hooks/use-elapsed.ts";
import { usePromptController } from "./hooks/use-prompt-controller.ts";
import { useResizeRepaint } from "./hooks/use-resize-repaint.ts";
import type { AgentEnvironment } from "./commands/agent-environment.ts";
import { ApprovalPrompt } from "./views/approval-prompt.tsx";
import { InputBox } from "./views/input-box.tsx";
import { PickerView } from "./views/picker-view.tsx";
import { QueuedMessages } from "./views/queued-messages.tsx";
import { StatusLine } from "./views/status-line.tsx";
import { SuggestionList } from "./views/suggestion-list.tsx";
import { TranscriptView } from "./views/transcript-view.tsx";
import { WaitingLine } from "./views/waiting-line.tsx";

export interface AppProps {
  client: AgentProtocolClient;
  sessionId: string;
  /** Where the agent runs, for the status line: "in-process" or the server's URL. */
  route: string;
  /** How the agent runs (sandbox, approvals), for /status; on a server only the route is known. */
  environment?: AgentEnvironment;
  /** Where /new starts sessions. */
  cwd: string | undefined;
  /** Shown as warnings before anything else, once (e.g. a project config that chose the model). */
  startupNotices?: readonly string[];
  /** Called with each session switched to (/new, /resume). */
  onSwitch?: (sessionId: string) => void;
  /** Called after /quit or a second Ctrl+C (Ink's own exit happens first), with the session. */
  onQuit?: (sessionId: string) => void;
  frameMs?: number;
}

const CLEAR_SCREEN = "\u001b[2J\u001b[3J\u001b[H";

/** The terminal's width, following resizes. */
function useTerminalColumns(stdout: NodeJS.WriteStream): number {
  const [columns, setColumns] = useState(stdout.columns || 80);
  useEffect(() => {
    const onResize = (): void => setColumns(stdout.columns || 80);
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout]);
  return columns;
}

export function App(props: AppProps) {
  const { client } = props;
  const { exit } = useApp();
  const { stdout, write: writeAboveLive } = useStdout();
  const [sessionId, setSessionId] = useState(props.sessionId);
  const [staticGeneration, setStaticGeneration] = useState(0);
  const [clearedBefore, setClearedBefore] = useState(0);
  const columns = useTerminalColumns(stdout);
  /** Where /clear last cut the current session's transcript: a repaint starts there. */
  const clearPoint = useRef(0);
  const previousClearPoint = useRef(0);
  /** The session shown before the last switch: where a refused switch goes back to. */
  const previousSessionId = useRef<string | undefined>(undefined);
  const backFromFailedAttach = useRef<(failed: string, error: unknown) => void>(() => undefined);
  const session = useAgentSession(client, sessionId, {
    ...(props.frameMs === undefined ? {} : { frameMs: props.frameMs }),
    onAttachFailed: (failed, error) => backFromFailedAttach.current(failed, error),
  });
  const { state } = session;
  const startupNotices = useRef(props.startupNotices);
  useEffect(() => {
    // Once for the app's life: the first session's transcript opens with them.
    for (const text of startupNotices.current ?? [])
      session.dispatch({ type: "notice", text, tone: "warning" });
    startupNotices.current = undefined;
  }, [session.dispatch]);

  const switchSession = useCallback(
    (next: string) => {
      previousSessionId.current = sessionId;
      props.onSwitch?.(next);
      previousClearPoint.current = clearPoint.current;
      clearPoint.current = 0;
      // A new <Static> for the new session: the old one's items stay on screen above it.
      setSessionId(next);
      setStaticGeneration((generation) => generation + 1);
      setClearedBefore(0);
    },
    [sessionId, props.onSwitch],
  );
  backFromFailedAttach.current = (failed, error) => {
    const previous = previousSessionId.current;
    previousSessionId.current = undefined;
    const why: SessionViewAction[] = [
      errorAction(error),
      {
        type: "notice",
        tone: "warning",
        text: `Still in session ${previous}; ${failed} was not opened.`,
      },
    ];
    const kept = previous === undefined ? undefined : session.restore(previous, why);
    if (previous === undefined || kept === undefined) {
      // Nothing to go back to (spark --session of a session another process owns): leave.
      exit(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    // Back where the user was, its items already on screen: none drawn again, the reason below.
    clearPoint.current = previousClearPoint.current;
    setSessionId(previous);
    setStaticGeneration((generation) => generation + 1);
    setClearedBefore(kept);
  };

  const finishedCount = state.finished.length;
  /** Clears the screen and its scrollback and draws the session's items from `first` again. */
  const redrawFrom = useCallback(
    (first: number) => {
      // Through Ink: it erases its live region, writes this, and draws the input and status again
      // at once (written past Ink, the screen stayed blank until a key changed the output).
      writeAboveLive(CLEAR_SCREEN);
      setStaticGeneration((generation) => generation + 1);
      setClearedBefore(first);
    },
    [writeAboveLive],
  );
  const clearScreen = useCallback(() => {
    clearPoint.current = finishedCount;
    redrawFrom(finishedCount);
  }, [redrawFrom, finishedCount]);
  // After a resize the terminal's reflow can leave copies of the live region where no cursor
  // reaches them: this session's transcript since the last /clear is drawn again at the new width.
  useResizeRepaint(stdout, () => redrawFrom(clearPoint.current));
  const quit = useCallback(() => {
    exit();
    props.onQuit?.(sessionId);
  }, [exit, props, sessionId]);

  const prompt = usePromptController({
    client,
    view: state,
    dispatch: session.dispatch,
    cwd: props.cwd,
    switchSession,
    clearScreen,
    quit,
    environment: props.environment ?? { route: props.route },
  });
  const elapsedMs = useElapsedMs(state.metrics.turnStartedAt, prompt.running);
  const showSuggestions = prompt.picker === undefined && state.pendingApproval === undefined;

  return (
    <Box flexDirection="column">
      <TranscriptView
        finished={clearedBefore === 0 ? state.finished : state.finished.slice(clearedBefore)}
        live={state.live}
        generation={staticGeneration}
        columns={columns}
      />
      {prompt.running &&
      state.status === "running" &&
      state.metrics.firstDeltaAt === null &&
      state.live === undefined ? (
        <WaitingLine elapsedMs={elapsedMs} />
      ) : null}
      {state.pendingApproval === undefined ? null : (
        <ApprovalPrompt approval={state.pendingApproval} />
      )}
      {prompt.picker === undefined ? null : (
        <PickerView
          title={prompt.picker.title}
          options={prompt.picker.options}
          selected={prompt.picker.selected}
        />
      )}
      <QueuedMessages messages={prompt.queued} />
      <InputBox
        value={prompt.line.value}
        cursor={prompt.line.cursor}
        running={prompt.running}
        hint={prompt.hint}
      />
      {showSuggestions && prompt.completions.suggestions.length > 0 ? (
        <SuggestionList
          suggestions={prompt.completions.suggestions}
          selected={prompt.completions.selected}
        />
      ) : null}
      <StatusLine
        model={state.model}
        nextModel={prompt.nextModel}
        route={props.route}
        status={state.status}
        metrics={state.metrics}
        sessionId={sessionId}
        elapsedMs={elapsedMs}
      />
    </Box>
  );
}
