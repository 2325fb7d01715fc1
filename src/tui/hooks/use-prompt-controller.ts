// The keyboard: what each key does given the session's state (idle, running, asking for an
// approval) and the UI's (a suggestion list, a picker). Sending goes through the protocol:
// Enter → turn/start or turn/steer, Esc → turn/interrupt, y/n/a → approval/respond; Tab queues
// the message here until the turn ends (use-message-queue.ts), then it is a turn/start.
import { useCallback, useEffect, useRef, useState } from "react";
import type { AgentProtocolClient } from "../../protocol/agent/agent-protocol-client.ts";
import { AgentProtocolError } from "../../protocol/agent/json-rpc.ts";
import type { ApprovalDecision } from "../../protocol/agent/session-events.ts";
import type { PickRequest, SlashCommandContext } from "../commands/slash-command.ts";
import { parseSlashCommand } from "../commands/slash-command.ts";
import { findSlashCommand, slashCommands } from "../commands/slash-commands.ts";
import type { SlashCommand } from "../commands/slash-command.ts";
import type { AgentEnvironment } from "../commands/agent-environment.ts";
import { InputHistory } from "../state/input-history.ts";
import type { KeyPress } from "../state/key-press.ts";
import { editForKey, type LineState } from "../state/line-editor.ts";
import { useLineEditor } from "./use-line-editor.ts";
import { useMessageQueue } from "./use-message-queue.ts";
import { useTerminalKeys } from "./use-terminal-keys.ts";
import type { SessionViewAction, SessionViewState } from "../state/session-view-state.ts";
import { errorAction } from "./use-agent-session.ts";
import { useCompletions, type Completions } from "./use-completions.ts";
import { useSyncedState } from "./use-synced-state.ts";

const APPROVAL_KEYS: Partial<Record<string, ApprovalDecision>> = {
  y: "approve",
  n: "deny",
  a: "always",
};

/** A second Ctrl+C within this long quits. */
export const QUIT_WINDOW_MS = 2000;

export interface PickerState extends PickRequest {
  selected: number;
}

export interface PromptControllerOptions {
  client: AgentProtocolClient;
  view: SessionViewState;
  dispatch: (action: SessionViewAction) => void;
  cwd: string | undefined;
  switchSession: (sessionId: string) => void;
  clearScreen: () => void;
  quit: () => void;
  environment?: AgentEnvironment;
}

export interface PromptController {
  line: LineState;
  completions: Completions;
  picker: PickerState | undefined;
  nextModel: string | undefined;
  hint: string | undefined;
  running: boolean;
  /** Messages queued (Tab) for when the running turn ends, oldest first. */
  queued: readonly string[];
}

export function usePromptController(options: PromptControllerOptions): PromptController {
  const { client, view, dispatch } = options;
  const sessionId = view.sessionId;
  const { line, current, edit } = useLineEditor();
  const history = useRef(new InputHistory()).current;
  const completions = useCompletions(client, sessionId, line);
  const picker = useSyncedState<PickerState | undefined>(undefined);
  const setPicker = picker.set;
  /**
   * Keys typed while a command that answers with a picker (/model, /resume) fetches its list:
   * they are meant for the picker, so they wait for it (or for the command to end without one).
   */
  const heldKeys = useRef<KeyPress[] | undefined>(undefined);
  const handleKeyRef = useRef<(key: KeyPress) => void>(() => undefined);
  const [nextModel, setNextModel] = useState<string | undefined>(undefined);
  const [hint, setHint] = useState<string | undefined>(undefined);
  const lastCtrlC = useRef(0);
  const running = view.status !== "idle";

  /** Text given back to the input (a queued message, an unsent one) goes after what is typed. */
  const putInInput = useCallback(
    (text: string) => {
      const typed = current().value;
      edit({ type: "set", value: typed === "" ? text : `${typed}\n${text}` });
    },
    [current, edit],
  );

  const returned = view.returnedInput;
  useEffect(() => {
    if (returned === undefined) return;
    // Messages another client queued on the server, dropped by an interrupt.
    dispatch({ type: "input-returned" });
    putInInput(returned);
    // Only a newly returned text matters; the line is read as it is at that moment.
  }, [returned, dispatch, putInInput]);

  const report = (error: unknown): void => dispatch(errorAction(error));

  const startTurn = async (text: string): Promise<void> => {
    const model = nextModel;
    setNextModel(undefined);
    await client.request("turn/start", {
      sessionId,
      text,
      ...(model === undefined ? {} : { model }),
    });
  };
  const queue = useMessageQueue({
    view,
    startTurn,
    giveBack: (text, error) => {
      putInInput(text);
      report(error);
    },
  });

  /** Stops the running turn; what was queued for after it comes back to the input instead. */
  const interrupt = (): void => {
    client.request("turn/interrupt", { sessionId }).catch(report);
    const queued = queue.takeAll();
    if (queued.length > 0) putInInput(queued.join("\n"));
  };

  const slashContext = (): SlashCommandContext => ({
    client,
    sessionId,
    cwd: options.cwd,
    view,
    dispatch,
    switchSession: options.switchSession,
    setNextModel,
    pick: (request) => setPicker({ ...request, selected: 0 }),
    clearScreen: options.clearScreen,
    quit: options.quit,
    commands: slashCommands,
    ...(options.environment === undefined ? {} : { environment: options.environment }),
  });

  const runCommand = (found: SlashCommand, args: string): void => {
    const holding = found.answersWithPicker?.(args) === true;
    if (holding) heldKeys.current = [];
    void found.run(args, slashContext()).finally(() => {
      if (!holding) return;
      const keys = heldKeys.current ?? [];
      heldKeys.current = undefined;
      for (const key of keys) handleKeyRef.current(key);
    });
  };

  const send = (text: string, via: "enter" | "tab"): void => {
    if (text.trim() === "") return;
    history.add(text);
    edit({ type: "set", value: "" });
    const command = parseSlashCommand(text);
    if (command !== undefined) {
      const found = findSlashCommand(command.name);
      if (found === undefined)
        dispatch({
          type: "notice",
          tone: "warning",
          text: `No command /${command.name}; /help lists them.`,
        });
      else runCommand(found, command.args);
      return;
    }
    if (running && via === "tab") queue.add(text);
    else if (running) client.request("turn/steer", { sessionId, text }).catch(report);
    else
      startTurn(text).catch((error: unknown) => {
        // The turn started elsewhere (another client) before our status caught up: steer it.
        if (error instanceof AgentProtocolError && error.code === "engine_busy")
          client.request("turn/steer", { sessionId, text }).catch(report);
        else report(error);
      });
  };

  const answerApproval = (decision: ApprovalDecision): void => {
    const approval = view.pendingApproval;
    if (approval === undefined) return;
    client
      .request("approval/respond", { sessionId, approvalId: approval.approvalId, decision })
      .catch(report);
  };

  const handlePicker = (key: KeyPress, current: PickerState): void => {
    if (key.name === "escape") setPicker(undefined);
    else if (key.name === "up" || key.name === "down") {
      const count = Math.max(1, current.options.length);
      setPicker({
        ...current,
        selected: (current.selected + (key.name === "up" ? -1 : 1) + count) % count,
      });
    } else if (key.name === "return") {
      setPicker(undefined);
      const option = current.options[current.selected];
      if (option !== undefined) Promise.resolve(current.onPick(option.value)).catch(report);
    }
  };

  const handleKey = (key: KeyPress): void => {
    if (heldKeys.current !== undefined && !(key.name === "ctrl" && key.text === "c")) {
      heldKeys.current.push(key);
      return;
    }
    if (key.name === "ctrl" && key.text === "c") {
      // As in Codex and Claude Code: the first Ctrl+C stops the running turn, and only an idle
      // session quits (on a second press). An approval waiting is answered "no" by the interrupt.
      if (running) {
        interrupt();
        setHint("Interrupted. Press Ctrl+C twice to quit.");
        setTimeout(() => setHint(undefined), QUIT_WINDOW_MS);
        return;
      }
      const now = Date.now();
      if (now - lastCtrlC.current < QUIT_WINDOW_MS) options.quit();
      else {
        lastCtrlC.current = now;
        setHint("Press Ctrl+C again to quit.");
        setTimeout(() => setHint(undefined), QUIT_WINDOW_MS);
      }
      return;
    }
    if (key.name === "ctrl" && key.text === "t") {
      // As Codex's Ctrl+T: what was cut from view, here the latest command's whole output.
      dispatch({ type: "show-output" });
      return;
    }
    if (view.pendingApproval !== undefined) {
      const decision = key.name === "text" ? APPROVAL_KEYS[key.text.toLowerCase()] : undefined;
      if (decision !== undefined) answerApproval(decision);
      else if (key.name === "escape") answerApproval("deny");
      return;
    }
    const openPicker = picker.get();
    if (openPicker !== undefined) {
      handlePicker(key, openPicker);
      return;
    }
    const line = current();
    const hasSuggestions = completions.suggestionsFor(line).length > 0;
    switch (key.name) {
      case "escape":
        if (hasSuggestions) completions.dismiss(line);
        else if (running) interrupt();
        return;
      case "tab": {
        const accepted = completions.accept(line);
        if (accepted !== undefined) edit({ type: "set", value: accepted.value });
        else if (running) send(line.value, "tab");
        return;
      }
      case "up":
      case "down":
        if (key.meta && key.name === "up") {
          // Alt+↑, as in Codex: the newest queued message comes back to be edited.
          const queued = queue.takeLast();
          if (queued !== undefined) putInInput(queued);
        } else if (hasSuggestions) completions.move(line, key.name === "up" ? -1 : 1);
        else {
          const recalled = key.name === "up" ? history.previous(line.value) : history.next();
          if (recalled === undefined) return;
          edit({ type: "set", value: recalled });
          // A recalled `/diff` opens no command list: the next ↑ goes on through the history.
          completions.dismiss(current());
        }
        return;
      case "return": {
        const typedCommand = parseSlashCommand(line.value);
        const isComplete =
          typedCommand !== undefined && findSlashCommand(typedCommand.name) !== undefined;
        const accepted = hasSuggestions && !isComplete ? completions.accept(line) : undefined;
        if (accepted === undefined) send(line.value, "enter");
        else if (completions.targetFor(line)?.kind === "command" && !accepted.value.endsWith(" "))
          send(accepted.value, "enter");
        else edit({ type: "set", value: accepted.value });
        return;
      }
      default: {
        const change = editForKey(key);
        if (change !== undefined) edit(change);
      }
    }
  };
  handleKeyRef.current = handleKey;
  useTerminalKeys(handleKey);

  return {
    line,
    completions,
    picker: picker.rendered,
    nextModel,
    hint,
    running,
    queued: queue.messages,
  };
}
