// Messages queued with Tab while a turn runs, kept here in the terminal UI until the session is
// idle and then sent, one per turn, as turn/start: what "queue for after the turn" says, and what
// Codex does. The server's turn/queue delivers at the next step, mid-turn, and has no way to take
// a message back; a client-side queue is shown above the input and can be edited until it goes.
import { useCallback, useEffect, useRef, useState } from "react";
import { AgentProtocolError } from "../../protocol/agent/json-rpc.ts";
import type { SessionViewState } from "../state/session-view-state.ts";

export interface MessageQueue {
  messages: readonly string[];
  add(text: string): void;
  /** Takes the newest queued message back out (for the input to edit), if any. */
  takeLast(): string | undefined;
  /** Empties the queue, oldest first: an interrupt gives the messages back to the input. */
  takeAll(): string[];
}

export interface MessageQueueOptions {
  view: Pick<SessionViewState, "status" | "turnsStarted" | "sessionId">;
  /** Starts a turn with the message (turn/start); rejects as the request does. */
  startTurn: (text: string) => Promise<void>;
  /** A message that could not be sent goes back to the input, with the error shown. */
  giveBack: (text: string, error: unknown) => void;
}

export function useMessageQueue({ view, startTurn, giveBack }: MessageQueueOptions): MessageQueue {
  const [messages, setMessages] = useState<readonly string[]>([]);
  const latest = useRef<readonly string[]>([]);
  // The session's turn count when a queued message was sent: until a later turn has started,
  // the view's "idle" may be the moment before that turn, and sending again would collide.
  const [sentAtTurn, setSentAtTurn] = useState<number | undefined>(undefined);

  const update = useCallback((next: readonly string[]) => {
    latest.current = next;
    setMessages(next);
  }, []);

  const add = useCallback((text: string) => update([...latest.current, text]), [update]);
  const takeLast = useCallback((): string | undefined => {
    const last = latest.current.at(-1);
    if (last !== undefined) update(latest.current.slice(0, -1));
    return last;
  }, [update]);
  const takeAll = useCallback((): string[] => {
    const all = [...latest.current];
    update([]);
    return all;
  }, [update]);

  // A new session starts with an empty queue (what was queued for the old one is not sent).
  useEffect(() => {
    update([]);
    setSentAtTurn(undefined);
  }, [view.sessionId, update]);

  const startTurnRef = useRef(startTurn);
  startTurnRef.current = startTurn;
  const giveBackRef = useRef(giveBack);
  giveBackRef.current = giveBack;

  const { status, turnsStarted } = view;
  const waiting = sentAtTurn !== undefined && turnsStarted <= sentAtTurn;
  useEffect(() => {
    if (status !== "idle" || waiting) return;
    const [next, ...rest] = latest.current;
    if (next === undefined) return;
    update(rest);
    setSentAtTurn(turnsStarted);
    startTurnRef.current(next).catch((error: unknown) => {
      if (error instanceof AgentProtocolError && error.code === "engine_busy") {
        // Another client's turn began first: this one waits for that turn to end.
        update([next, ...latest.current]);
        return;
      }
      setSentAtTurn(undefined);
      giveBackRef.current(next, error);
    });
  }, [status, turnsStarted, waiting, messages, update]);

  return { messages, add, takeLast, takeAll };
}
