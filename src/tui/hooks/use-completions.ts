// Suggestions for the input as it is typed: slash commands at once, workspace files for an
// `@path` mention (workspace/files, fuzzy, gitignore respected by the server) after a short pause.
import { useCallback, useEffect, useState } from "react";
import type { AgentProtocolClient } from "../../protocol/agent/agent-protocol-client.ts";
import { completeSlashCommand } from "../commands/slash-commands.ts";
import { acceptSuggestion, completionTarget, type CompletionTarget } from "../state/completion.ts";
import type { LineState } from "../state/line-editor.ts";
import type { Suggestion } from "../views/suggestion-list.tsx";

const FILE_QUERY_DELAY_MS = 60;
const FILE_SUGGESTIONS = 50;

export interface Completions {
  suggestions: Suggestion[];
  selected: number;
  target: CompletionTarget | undefined;
  move: (delta: number) => void;
  /** The line with the selected suggestion accepted, or undefined when there is none. */
  accept: (line: LineState) => LineState | undefined;
  /** Hides the list until the input changes. */
  dismiss: () => void;
}

export function useCompletions(
  client: AgentProtocolClient,
  sessionId: string,
  line: LineState,
): Completions {
  const [fileSuggestions, setFileSuggestions] = useState<Suggestion[]>([]);
  const [selected, setSelected] = useState(0);
  const [dismissedAt, setDismissedAt] = useState<string | undefined>(undefined);
  const target = dismissedAt === line.value ? undefined : completionTarget(line);
  const fileQuery = target?.kind === "file" ? target.query : undefined;

  useEffect(() => {
    setSelected(0);
    if (fileQuery === undefined) {
      setFileSuggestions([]);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      client
        .request(
          "workspace/files",
          { sessionId, query: fileQuery, limit: FILE_SUGGESTIONS },
          { signal: controller.signal },
        )
        .then((result) =>
          setFileSuggestions(result.files.map((file) => ({ value: file, label: file }))),
        )
        .catch(() => setFileSuggestions([]));
    }, FILE_QUERY_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [client, sessionId, fileQuery]);

  const suggestions =
    target === undefined
      ? []
      : target.kind === "command"
        ? completeSlashCommand(target.prefix)
        : fileSuggestions;

  const move = useCallback(
    (delta: number) =>
      setSelected((current) =>
        suggestions.length === 0 ? 0 : (current + delta + suggestions.length) % suggestions.length,
      ),
    [suggestions.length],
  );

  return {
    suggestions,
    selected: Math.min(selected, Math.max(0, suggestions.length - 1)),
    target,
    move,
    accept(current) {
      const suggestion = suggestions[Math.min(selected, suggestions.length - 1)];
      if (target === undefined || suggestion === undefined) return undefined;
      return acceptSuggestion(current, target, suggestion.value);
    },
    dismiss: () => setDismissedAt(line.value),
  };
}
