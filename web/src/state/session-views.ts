// Each session's view (transcript, live stats, last sequence) as this page holds it: kept in memory
// per session, restored from session storage the first time a session is shown, and written back
// at most once a second while events arrive (and whenever the store asks, as on `pagehide`).
import { emptyView } from "./app-state.ts";
import { forgetClock } from "./live-stats.ts";
import type { SessionView, ViewStorage } from "./view-storage.ts";

const SNAPSHOT_INTERVAL_MS = 1000;

export class SessionViews {
  private readonly views = new Map<string, SessionView>();
  private lastSnapshotAt = 0;

  constructor(
    private readonly storage: ViewStorage,
    private readonly now: () => number,
  ) {}

  get(sessionId: string): SessionView | undefined {
    return this.views.get(sessionId);
  }

  set(sessionId: string, view: SessionView): void {
    this.views.set(sessionId, view);
  }

  /** The view to show: the one in memory, else the stored one (whose turn clock is stale), else
   * an empty one; it is kept in memory from now on. */
  restore(sessionId: string): SessionView {
    const stored = this.views.has(sessionId) ? undefined : this.storage.loadView(sessionId);
    const view =
      this.views.get(sessionId) ??
      (stored === undefined ? emptyView() : { ...stored, stats: forgetClock(stored.stats) });
    this.views.set(sessionId, view);
    return view;
  }

  /** Writes the open session's view to storage now. */
  saveSnapshot(sessionId: string | undefined, view: SessionView): void {
    if (sessionId !== undefined) this.storage.saveView(sessionId, view);
    this.lastSnapshotAt = this.now();
  }

  /** Whether the last snapshot is old enough that a changed view should be written again. */
  snapshotDue(): boolean {
    return this.now() - this.lastSnapshotAt >= SNAPSHOT_INTERVAL_MS;
  }
}
