// What a slash command is and what it may touch: the protocol client, the session's view and a few
// UI actions (switch session, pick from a list, clear, quit). One command per file, each tested.
import type { AgentProtocolClient } from "../../protocol/agent/agent-protocol-client.ts";
import type { SessionViewAction, SessionViewState } from "../state/session-view-state.ts";
import type { Suggestion } from "../views/suggestion-list.tsx";
import type { AgentEnvironment } from "./agent-environment.ts";

export interface PickRequest {
  title: string;
  options: Suggestion[];
  onPick: (value: string) => void | Promise<void>;
}

export interface SlashCommandContext {
  client: AgentProtocolClient;
  sessionId: string;
  /** The directory new sessions start in (/new). */
  cwd: string | undefined;
  view: SessionViewState;
  /** Adds a notice, an error or another view action to the transcript. */
  dispatch: (action: SessionViewAction) => void;
  switchSession: (sessionId: string) => void;
  setNextModel: (model: string) => void;
  pick: (request: PickRequest) => void;
  clearScreen: () => void;
  quit: () => void;
  commands: readonly SlashCommand[];
  /** How the agent runs (route, sandbox, approvals), for /status. */
  environment?: AgentEnvironment;
}

export interface SlashCommand {
  /** Without the slash: "undo". */
  name: string;
  description: string;
  /** Shown after the name in /help and completion, e.g. "[name]". */
  argumentHint?: string;
  run: (args: string, context: SlashCommandContext) => Promise<void>;
  /**
   * Whether running with these args opens a picker once its list arrives: keys typed meanwhile
   * wait for the picker instead of editing the input (`/model`, then ↓↓↓ Enter in one burst).
   */
  answersWithPicker?: (args: string) => boolean;
}

/** "/model fast" → { name: "model", args: "fast" }; undefined when the text is not a command. */
export function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (match === null) return undefined;
  return { name: (match[1] ?? "").toLowerCase(), args: (match[2] ?? "").trim() };
}

export function notice(
  context: SlashCommandContext,
  text: string,
  tone: "info" | "warning" = "info",
): void {
  context.dispatch({ type: "notice", text, tone });
}
