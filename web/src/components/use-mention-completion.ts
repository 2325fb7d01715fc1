// `@` completion in the message box: workspace files matching what follows the `@` (the server's
// fuzzy search, gitignore respected), asked for after a short pause; ↑/↓ pick, Enter or Tab
// accepts, Esc closes the list until the text changes.
import { useEffect, useState } from "preact/hooks";
import type { AppStore } from "../state/app-store.ts";
import { acceptMention, mentionTarget, type MentionTarget } from "../state/mention-completion.ts";

const QUERY_DELAY_MS = 60;
const SUGGESTIONS = 8;

export interface MentionCompletion {
  target: MentionTarget | undefined;
  suggestions: readonly string[];
  selected: number;
  move: (delta: number) => void;
  /** The text and cursor with `path` (default: the selected suggestion) accepted. */
  accept: (path?: string) => { text: string; cursor: number } | undefined;
  dismiss: () => void;
}

export function useMentionCompletion(
  store: AppStore,
  text: string,
  cursor: number,
): MentionCompletion {
  const [suggestions, setSuggestions] = useState<readonly string[]>([]);
  const [selected, setSelected] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<string | undefined>(undefined);
  const target = dismissedAt === text ? undefined : mentionTarget(text, cursor);
  const query = target?.query;

  useEffect(() => {
    setSelected(0);
    if (query === undefined) {
      setSuggestions([]);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      void store.findFiles(query, SUGGESTIONS).then((files) => {
        if (current) setSuggestions(files);
      });
    }, QUERY_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [store, query]);

  const shown = target === undefined ? [] : suggestions;
  return {
    target,
    suggestions: shown,
    selected: Math.min(selected, Math.max(0, shown.length - 1)),
    move: (delta) =>
      setSelected((index) =>
        shown.length === 0 ? 0 : (index + delta + shown.length) % shown.length,
      ),
    accept(path) {
      const chosen = path ?? shown[Math.min(selected, shown.length - 1)];
      if (target === undefined || chosen === undefined) return undefined;
      return acceptMention(text, cursor, target, chosen);
    },
    dismiss: () => setDismissedAt(text),
  };
}
