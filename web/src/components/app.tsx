// The page: sessions and files on the left, the live strip, conversation and message box on the
// right. Global keys and file drops are handled here; everything else is in its component.
import { useEffect, useState } from "preact/hooks";
import type { AppStore } from "../state/app-store.ts";
import { resolveShortcut, type ShortcutAction } from "../state/shortcuts.ts";
import { addFile, Composer } from "./composer.tsx";
import { FileTreeView } from "./file-tree-view.tsx";
import { HelpDialog } from "./help-dialog.tsx";
import { LiveStrip } from "./live-strip.tsx";
import { SessionSidebar } from "./session-sidebar.tsx";
import { TranscriptView } from "./transcript-view.tsx";
import { useAppState } from "./use-app-state.ts";

export function App({ store }: { store: AppStore }) {
  const state = useAppState(store);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      const inTextField =
        target !== null &&
        (target.tagName === "TEXTAREA" ||
          (target.tagName === "INPUT" && (target as HTMLInputElement).type !== "checkbox"));
      const action = resolveShortcut({
        key: event.key,
        code: event.code,
        altKey: event.altKey,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        shiftKey: event.shiftKey,
        inTextField,
        inComposer: target?.id === "composer-input",
      });
      // The message box handles its own Enter (it owns the text).
      if (action === undefined || action === "send" || action === "queue") return;
      event.preventDefault();
      runShortcut(store, action);
    };
    const onDragOver = (event: DragEvent): void => {
      event.preventDefault();
      setDragging(true);
    };
    const onDragLeave = (event: DragEvent): void => {
      if (event.relatedTarget === null) setDragging(false);
    };
    const onDrop = (event: DragEvent): void => {
      event.preventDefault();
      setDragging(false);
      for (const file of Array.from(event.dataTransfer?.files ?? [])) void addFile(store, file);
    };
    window.addEventListener("keydown", onKeyDown);
    window.addEventListener("dragover", onDragOver);
    window.addEventListener("dragleave", onDragLeave);
    window.addEventListener("drop", onDrop);
    return () => {
      window.removeEventListener("keydown", onKeyDown);
      window.removeEventListener("dragover", onDragOver);
      window.removeEventListener("dragleave", onDragLeave);
      window.removeEventListener("drop", onDrop);
    };
  }, [store]);

  const transcript = state.view.transcript;
  const summary = state.sessions.find((session) => session.sessionId === state.currentSessionId);
  return (
    <div class={`app${dragging ? " dragging" : ""}`}>
      <header class="top">
        <span class="brand">Spark</span>
        <span
          class={`connection connection-${state.connection}`}
          data-testid="connection"
          role="status"
        >
          {state.connection === "open" ? "connected" : state.connection}
          {state.connectionDetail === undefined || state.connection === "open"
            ? ""
            : `: ${state.connectionDetail}`}
        </span>
        <button
          type="button"
          class="help-button"
          onClick={() => store.setHelpOpen(true)}
          aria-label="Keyboard shortcuts"
        >
          ?
        </button>
      </header>
      <aside class="sidebar">
        <SessionSidebar store={store} state={state} />
        <FileTreeView store={store} state={state} />
      </aside>
      <main class="main">
        <LiveStrip
          model={transcript.model ?? summary?.model}
          stats={state.view.stats}
          status={statusText(transcript.status)}
        />
        <TranscriptView store={store} items={transcript.items} />
        {state.flash === undefined ? null : (
          <div class={`flash ${state.flash.tone}`} role="alert" data-testid="flash">
            {state.flash.text}
            <button type="button" aria-label="Dismiss" onClick={() => store.dismissFlash()}>
              ×
            </button>
          </div>
        )}
        <Composer store={store} state={state} />
      </main>
      {state.helpOpen ? <HelpDialog onClose={() => store.setHelpOpen(false)} /> : null}
      {dragging ? (
        <div class="drop-hint">Drop text files to attach them to your message</div>
      ) : null}
    </div>
  );
}

function statusText(status: string): string {
  if (status === "running") return "streaming";
  if (status === "awaiting-approval") return "waiting for approval";
  return status;
}

function runShortcut(store: AppStore, action: ShortcutAction): void {
  // Selectors in order of preference (one selector list would pick the first in the document).
  const focus = (...selectors: string[]): void => {
    for (const selector of selectors) {
      const element = document.querySelector<HTMLElement>(selector);
      if (element !== null) return element.focus();
    }
  };
  switch (action) {
    case "interrupt":
      if (store.getState().helpOpen) store.setHelpOpen(false);
      else void store.interrupt();
      return;
    case "toggle-help":
      store.setHelpOpen(!store.getState().helpOpen);
      return;
    case "focus-composer":
      return focus("#composer-input");
    case "focus-sessions":
      return focus("#session-list button.current", "#session-list button", "#new-session-button");
    case "focus-files":
      return focus("#file-filter");
    case "new-session":
      return focus("#new-session-cwd");
    case "undo-last-edit":
      void store.undo(undefined);
      return;
    case "send":
    case "queue":
      return;
    default:
      action satisfies never;
  }
}
