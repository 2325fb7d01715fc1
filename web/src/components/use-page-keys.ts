// The page's global keys (the table in state/shortcuts.ts) and file drops anywhere on the page.
import { useEffect, useState } from "preact/hooks";
import type { AppStore } from "../state/app-store.ts";
import { resolveShortcut, type ShortcutAction } from "../state/shortcuts.ts";
import { pendingApproval } from "../state/transcript.ts";

/** Installs the handlers; returns whether files are being dragged over the page. */
export function usePageKeys(store: AppStore): boolean {
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      const inTextField =
        target !== null &&
        (target.tagName === "TEXTAREA" ||
          (target.tagName === "INPUT" && (target as HTMLInputElement).type !== "checkbox"));
      const inComposer = target?.id === "composer-input";
      const action = resolveShortcut({
        key: event.key,
        code: event.code,
        altKey: event.altKey,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        shiftKey: event.shiftKey,
        inTextField,
        inComposer,
        approvalPending: pendingApproval(store.getState().view.transcript.items) !== undefined,
        composerEmpty: inComposer && (target as HTMLTextAreaElement).value === "",
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
      for (const file of Array.from(event.dataTransfer?.files ?? []))
        void store.addUploadFrom(file);
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
  return dragging;
}

function runShortcut(store: AppStore, action: ShortcutAction): void {
  // Selectors in order of preference (one selector list would pick the first in the document).
  const focus = (...selectors: string[]): void => {
    for (const selector of selectors) {
      const element = document.querySelector<HTMLElement>(selector);
      if (element !== null) return element.focus();
    }
  };
  const state = store.getState();
  // On a narrow screen the panel is hidden until opened: focus once it shows (the store renders
  // on the next frame, and this frame callback runs after that).
  const focusInSidebar = (...selectors: string[]): void => {
    const sidebar = document.getElementById("sidebar");
    if (sidebar === null || getComputedStyle(sidebar).visibility !== "hidden") {
      return focus(...selectors);
    }
    store.setSidebarOpen(true);
    requestAnimationFrame(() => focus(...selectors));
  };
  const answer = (decision: "approve" | "always" | "deny"): void => {
    const approvalId = pendingApproval(state.view.transcript.items);
    if (approvalId !== undefined) void store.respondToApproval(approvalId, decision);
  };
  switch (action) {
    case "interrupt":
      // Esc closes what is open first; only then does it stop the turn.
      if (state.preview !== undefined) store.closePreview();
      else if (state.helpOpen) store.setHelpOpen(false);
      else if (state.sidebarOpen) store.setSidebarOpen(false);
      else void store.interrupt();
      return;
    case "toggle-help":
      store.setHelpOpen(!state.helpOpen);
      return;
    case "focus-composer":
      return focus("#composer-input");
    case "focus-sessions":
      return focusInSidebar(
        "#session-list button.current",
        "#session-list button",
        "#new-session-button",
      );
    case "focus-files":
      return focusInSidebar("#file-filter");
    case "new-session":
      return focusInSidebar("#new-session-cwd");
    case "undo-last-edit":
      void store.undo(undefined);
      return;
    case "approve":
      return answer("approve");
    case "approve-always":
      return answer("always");
    case "deny":
      return answer("deny");
    case "send":
    case "queue":
      return;
    default:
      action satisfies never;
  }
}
