// A SlashCommandContext over the fake agent server that records what a command did: the view
// actions it dispatched, the session it switched to, the list it offered, and so on.
import type { PickRequest, SlashCommandContext } from "../../src/tui/commands/slash-command.ts";
import { slashCommands } from "../../src/tui/commands/slash-commands.ts";
import {
  foldSessionView,
  initialSessionViewState,
  type SessionViewAction,
  type SessionViewState,
} from "../../src/tui/state/session-view-state.ts";
import {
  createFakeAgentServer,
  type FakeAgentServer,
  type FakeHandlers,
} from "./fake-agent-server.ts";

export interface RecordingContext {
  context: SlashCommandContext;
  server: FakeAgentServer;
  actions: SessionViewAction[];
  /** The notices' text, in order. */
  notices(): string[];
  switchedTo: string[];
  nextModels: string[];
  picks: PickRequest[];
  cleared: number;
  quit: number;
  /** The view after the recorded actions (what the transcript would show). */
  viewAfter(): SessionViewState;
}

export function recordingContext(
  handlers: FakeHandlers = {},
  view: SessionViewState = initialSessionViewState("s1"),
): RecordingContext {
  const server = createFakeAgentServer(handlers);
  const recording: RecordingContext = {
    context: undefined as unknown as SlashCommandContext,
    server,
    actions: [],
    notices: () =>
      recording.actions.flatMap((action) => (action.type === "notice" ? [action.text] : [])),
    switchedTo: [],
    nextModels: [],
    picks: [],
    cleared: 0,
    quit: 0,
    viewAfter: () => foldSessionView(view, recording.actions),
  };
  recording.context = {
    client: server.client,
    sessionId: view.sessionId,
    cwd: "/repo",
    view,
    dispatch: (action) => recording.actions.push(action),
    switchSession: (sessionId) => recording.switchedTo.push(sessionId),
    setNextModel: (model) => recording.nextModels.push(model),
    pick: (request) => recording.picks.push(request),
    clearScreen: () => (recording.cleared += 1),
    quit: () => (recording.quit += 1),
    commands: slashCommands,
  };
  return recording;
}
