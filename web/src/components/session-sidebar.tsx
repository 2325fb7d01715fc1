// The session list with live status, and the form that starts a session in a workspace root.
import { useState } from "preact/hooks";
import type { AppState, AppStore } from "../state/app-store.ts";
import { sessionTitle, startTimesForSameTitles, statusLabel } from "../state/session-list.ts";

export function SessionSidebar({ store, state }: { store: AppStore; state: AppState }) {
  const [cwd, setCwd] = useState("");
  const [model, setModel] = useState("");
  const roots = [...new Set(state.sessions.map((session) => session.cwd))];
  const startTimes = startTimesForSameTitles(state.sessions);
  return (
    <nav class="sessions" aria-label="Sessions">
      <form
        class="new-session"
        onSubmit={(event) => {
          event.preventDefault();
          void store.newSession(cwd, model);
        }}
      >
        <h2>Sessions</h2>
        <input
          id="new-session-cwd"
          list="workspace-roots"
          value={cwd}
          aria-label="Workspace folder for a new session"
          placeholder="workspace folder (default: the server's)"
          onInput={(event) => setCwd(event.currentTarget.value)}
        />
        <datalist id="workspace-roots">
          {roots.map((root) => (
            <option key={root} value={root} />
          ))}
        </datalist>
        <select
          aria-label="Model"
          value={model}
          onChange={(event) => setModel(event.currentTarget.value)}
        >
          <option value="">
            {state.defaultModel === undefined ? "default model" : `default (${state.defaultModel})`}
          </option>
          {state.models.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
        <button type="submit" id="new-session-button">
          New session
        </button>
      </form>
      <ul class="session-list" id="session-list">
        {state.sessions.map((session) => (
          <li key={session.sessionId}>
            <button
              type="button"
              class={`session${session.sessionId === state.currentSessionId ? " current" : ""}`}
              aria-current={session.sessionId === state.currentSessionId ? "page" : undefined}
              data-session-id={session.sessionId}
              onClick={() => void store.openSession(session.sessionId)}
            >
              <span class="session-title">{sessionTitle(session)}</span>
              <span
                class={`session-status status-${session.live ? session.status : "saved"}`}
                data-testid="session-status"
              >
                {statusLabel(session)}
              </span>
              <span class="session-cwd">
                {startTimes.has(session.sessionId) ? (
                  <span class="session-time">{startTimes.get(session.sessionId)} · </span>
                ) : null}
                {session.cwd}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
