// Suggestions for the input as it is typed: slash commands at once, workspace files for an
// `@path` mention (workspace/files, fuzzy, gitignore respected by the server) after a short pause.
// Keys ask about the line as the previous key left it (`current`), not as last rendered, and the
// selection belongs to the text it was made on: a burst never acts on a list already gone.
import { useEffect, useState } from "react";
import type { AgentProtocolClient } from "../../protocol/agent/agent-protocol-client.ts";
import { completeSlashCommand } from "../commands/slash-commands.ts";
import { acceptSuggestion, completionTarget, type CompletionTarget } from "../state/completion.ts";
import type { LineState } from "../state/line-editor.ts";
import type { Suggestion } from "../views/suggestion-list.tsx";
import { useSyncedState } from "./use-synced-state.ts";

const FILE_QUERY_DELAY_MS = 60;
const FILE_SUGGESTIONS = 50;

export interface Completions {
  /** For the rendered line. */
  suggestions: Suggestion[];
  selected: number;
  /** For a line as the keys left it. */
  targetFor: (line: LineState) => CompletionTarget | undefined;
  suggestionsFor: (line: LineState) => Suggestion[];
  move: (line: LineState, delta: number) => void;
  /** The line with the selected suggestion accepted, or undefined when there is none. */
  accept: (line: LineState) => LineState | undefined;
  /** Hides the list until the input changes. */
  dismiss: (line: LineState) => void;
}

interface Selection {
  /** The input's text when the selection was made: any other text starts at the first entry. */
  value: string;
  index: number;
}

export function useCompletions(
  client: AgentProtocolClient,
  sessionId: string,
  line: LineState,
): Completions {
  const [files, setFiles] = useState<{ query: string; suggestions: Suggestion[] }>({
    query: "",
    suggestions: [],
  });
  const selection = useSyncedState<Selection>({ value: "", index: 0 });
  const dismissedAt = useSyncedState<string | undefined>(undefined);

  const targetFor = (current: LineState, dismissed = dismissedAt.get()) =>
    dismissed === current.value ? undefined : completionTarget(current);
  const listFor = (target: CompletionTarget | undefined): Suggestion[] => {
    if (target === undefined) return [];
    if (target.kind === "command") return completeSlashCommand(target.prefix);
    // Only the answer for this very query: an older one would offer files the text no longer asks.
    return files.query === target.query ? files.suggestions : [];
  };
  const indexFor = (current: LineState, chosen: Selection, count: number): number =>
    chosen.value === current.value ? Math.min(chosen.index, Math.max(0, count - 1)) : 0;

  const renderedTarget = targetFor(line, dismissedAt.rendered);
  const fileQuery = renderedTarget?.kind === "file" ? renderedTarget.query : undefined;
  useEffect(() => {
    if (fileQuery === undefined) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      client
        .request(
          "workspace/files",
          { sessionId, query: fileQuery, limit: FILE_SUGGESTIONS },
          { signal: controller.signal },
        )
        .then((result) =>
          setFiles({
            query: fileQuery,
            suggestions: result.files.map((file) => ({ value: file, label: file })),
          }),
        )
        .catch(() => setFiles({ query: fileQuery, suggestions: [] }));
    }, FILE_QUERY_DELAY_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [client, sessionId, fileQuery]);

  const suggestions = listFor(renderedTarget);
  return {
    suggestions,
    selected: indexFor(line, selection.rendered, suggestions.length),
    targetFor: (current) => targetFor(current),
    suggestionsFor: (current) => listFor(targetFor(current)),
    move(current, delta) {
      const count = listFor(targetFor(current)).length;
      if (count === 0) return;
      const index = indexFor(current, selection.get(), count);
      selection.set({ value: current.value, index: (index + delta + count) % count });
    },
    accept(current) {
      const target = targetFor(current);
      const list = listFor(target);
      const suggestion = list[indexFor(current, selection.get(), list.length)];
      if (target === undefined || suggestion === undefined) return undefined;
      return acceptSuggestion(current, target, suggestion.value);
    },
    dismiss: (current) => dismissedAt.set(current.value),
  };
}
