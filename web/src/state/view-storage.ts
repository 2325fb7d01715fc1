// What survives a reload of this tab (sessionStorage, so nothing outlives the tab): the open
// session, and per session its folded transcript with the last sequence it includes, so the
// page re-attaches with `lastSequence` and the server replays only what was missed.
import type { LiveStats } from "./live-stats.ts";
import type { TranscriptState } from "./transcript.ts";

export interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface SessionView {
  transcript: TranscriptState;
  stats: LiveStats;
  /** The sequence of the last event folded into `transcript` (0: none). */
  lastSequence: number;
}

/** Past this a snapshot is not kept: the reload replays the session from its start instead. */
const MAX_SNAPSHOT_CHARACTERS = 2_000_000;
const CURRENT_SESSION_KEY = "spark.currentSession";
const VIEW_KEY_PREFIX = "spark.view.";
const API_KEY_KEY = "spark.apiKey";

export class ViewStorage {
  constructor(private readonly storage: StorageLike | undefined) {}

  loadCurrentSession(): string | undefined {
    return this.read(CURRENT_SESSION_KEY) ?? undefined;
  }

  saveCurrentSession(sessionId: string | undefined): void {
    if (sessionId === undefined) this.remove(CURRENT_SESSION_KEY);
    else this.write(CURRENT_SESSION_KEY, sessionId);
  }

  loadView(sessionId: string): SessionView | undefined {
    const text = this.read(VIEW_KEY_PREFIX + sessionId);
    if (text === null) return undefined;
    try {
      const view = JSON.parse(text) as SessionView;
      if (typeof view.lastSequence !== "number" || !Array.isArray(view.transcript?.items)) {
        return undefined;
      }
      return view;
    } catch {
      return undefined;
    }
  }

  saveView(sessionId: string, view: SessionView): void {
    const text = JSON.stringify(view);
    if (text.length > MAX_SNAPSHOT_CHARACTERS) this.remove(VIEW_KEY_PREFIX + sessionId);
    else this.write(VIEW_KEY_PREFIX + sessionId, text);
  }

  loadApiKey(): string | undefined {
    return this.read(API_KEY_KEY) ?? undefined;
  }

  saveApiKey(key: string | undefined): void {
    if (key === undefined) this.remove(API_KEY_KEY);
    else this.write(API_KEY_KEY, key);
  }

  private read(key: string): string | null {
    try {
      return this.storage?.getItem(key) ?? null;
    } catch {
      return null;
    }
  }

  private write(key: string, value: string): void {
    try {
      this.storage?.setItem(key, value);
    } catch {
      // Storage full or disabled: the page still works, a reload just replays more.
    }
  }

  private remove(key: string): void {
    try {
      this.storage?.removeItem(key);
    } catch {
      // As above.
    }
  }
}
