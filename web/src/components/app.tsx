// The page: sessions and files on the left (behind a button on a narrow screen), the live strip,
// conversation and message box on the right, and the dialogs. Keys and drops: use-page-keys.ts.
import type { AppStore } from "../state/app-store.ts";
import { Composer } from "./composer.tsx";
import { FileTreeView } from "./file-tree-view.tsx";
import { HelpDialog } from "./help-dialog.tsx";
import { LiveStrip } from "./live-strip.tsx";
import { SessionSidebar } from "./session-sidebar.tsx";
import { TextPreviewDialog } from "./text-preview-dialog.tsx";
import { TranscriptView } from "./transcript-view.tsx";
import { useAppState } from "./use-app-state.ts";
import { usePageKeys } from "./use-page-keys.ts";

export function App({ store }: { store: AppStore }) {
  const state = useAppState(store);
  const dragging = usePageKeys(store);
  const transcript = state.view.transcript;
  const summary = state.sessions.find((session) => session.sessionId === state.currentSessionId);
  return (
    <div class={`app${dragging ? " dragging" : ""}${state.sidebarOpen ? " sidebar-open" : ""}`}>
      <header class="top">
        <button
          type="button"
          class="sidebar-toggle"
          aria-controls="sidebar"
          aria-expanded={state.sidebarOpen}
          onClick={() => store.setSidebarOpen(!state.sidebarOpen)}
        >
          ☰ Sessions
        </button>
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
      <aside class="sidebar" id="sidebar" aria-label="Sessions and files">
        <SessionSidebar store={store} state={state} />
        <FileTreeView store={store} state={state} />
      </aside>
      {state.sidebarOpen ? (
        <div class="sidebar-backdrop" onClick={() => store.setSidebarOpen(false)} />
      ) : null}
      <main class="main">
        <LiveStrip
          model={transcript.model ?? summary?.model}
          stats={state.view.stats}
          status={statusText(transcript.status)}
        />
        <TranscriptView store={store} sessionId={state.currentSessionId} items={transcript.items} />
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
      {state.preview === undefined ? null : (
        <TextPreviewDialog
          title={state.preview.title}
          text={state.preview.text}
          onClose={() => store.closePreview()}
        />
      )}
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
