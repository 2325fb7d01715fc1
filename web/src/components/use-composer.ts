// The message box's own state: its text and cursor, the `@` completion on it, and its keys
// (Enter sends or steers, Alt+Enter queues; with the file list open ↑/↓/Enter/Tab/Esc drive it).
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { AppStore } from "../state/app-store.ts";
import { useMentionCompletion, type MentionCompletion } from "./use-mention-completion.ts";

export interface ComposerControl {
  input: { current: HTMLTextAreaElement | null };
  text: string;
  mention: MentionCompletion;
  submit: (mode: "send" | "queue") => Promise<void>;
  acceptMention: (path?: string) => boolean;
  onInput: (event: Event) => void;
  onSelect: (event: Event) => void;
  onKeyDown: (event: KeyboardEvent) => void;
}

export function useComposer(store: AppStore): ComposerControl {
  const [text, setText] = useState("");
  const [cursor, setCursor] = useState(0);
  const input = useRef<HTMLTextAreaElement>(null);
  const placeCursor = useRef<number | undefined>(undefined);
  const mention = useMentionCompletion(store, text, cursor);

  useLayoutEffect(() => {
    const position = placeCursor.current;
    if (position === undefined || input.current === null) return;
    placeCursor.current = undefined;
    input.current.setSelectionRange(position, position);
  });

  const submit = async (mode: "send" | "queue"): Promise<void> => {
    if (!(await store.send(text, mode))) return;
    setText("");
    setCursor(0);
  };
  const acceptMention = (path?: string): boolean => {
    const next = mention.accept(path);
    if (next === undefined) return false;
    setText(next.text);
    setCursor(next.cursor);
    placeCursor.current = next.cursor;
    input.current?.focus();
    return true;
  };
  const readCursor = (event: Event): void =>
    setCursor((event.currentTarget as HTMLTextAreaElement).selectionStart);

  return {
    input,
    text,
    mention,
    submit,
    acceptMention,
    onInput(event) {
      setText((event.currentTarget as HTMLTextAreaElement).value);
      readCursor(event);
    },
    onSelect: readCursor,
    onKeyDown(event) {
      if (event.isComposing) return;
      if (mention.suggestions.length > 0) {
        const handled = mentionKey(event, mention, acceptMention);
        if (handled) {
          event.preventDefault();
          event.stopPropagation(); // Esc closes the list; it does not stop the turn.
          return;
        }
      }
      if (event.key !== "Enter" || event.shiftKey) return;
      event.preventDefault();
      void submit(event.altKey ? "queue" : "send");
    },
  };
}

function mentionKey(
  event: KeyboardEvent,
  mention: MentionCompletion,
  acceptMention: () => boolean,
): boolean {
  switch (event.key) {
    case "ArrowDown":
      mention.move(1);
      return true;
    case "ArrowUp":
      mention.move(-1);
      return true;
    case "Enter":
    case "Tab":
      return !event.shiftKey && !event.altKey && acceptMention();
    case "Escape":
      mention.dismiss();
      return true;
    default:
      return false;
  }
}
