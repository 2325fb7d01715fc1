// The page's state and every action a component can take: plain TypeScript over the agent
// protocol client, with the browser's pieces (socket, storage, animation frames, the URL) passed
// in, so it runs under vitest without a DOM. Listeners hear at most one change per frame.
import {
  AgentProtocolError,
  type AgentProtocolClient,
  type ApprovalDecision,
  type MessageTransport,
  type SessionEventNotification,
  type SessionSummary,
} from "../../../src/protocol/agent/index.ts";
import { checkUpload, composeMessage, type Upload } from "./attachments.ts";
import { Connection, type ConnectionPhase } from "./connection.ts";
import { applyLiveStats, emptyLiveStats } from "./live-stats.ts";
import { mergeSession, sortSessions } from "./session-list.ts";
import {
  applySessionEvent,
  emptyTranscript,
  transcriptFromHistory,
  undoStepsTo,
  latestUndoableEdit,
} from "./transcript.ts";
import { ViewStorage, type SessionView, type StorageLike } from "./view-storage.ts";

export interface AppState {
  connection: ConnectionPhase;
  connectionDetail: string | undefined;
  sessions: readonly SessionSummary[];
  models: readonly string[];
  defaultModel: string | undefined;
  currentSessionId: string | undefined;
  view: SessionView;
  files: { paths: readonly string[]; truncated: boolean; query: string };
  attachedFiles: readonly string[];
  uploads: readonly Upload[];
  /** The last thing that went wrong (or a refusal), shown until the next action. */
  flash: { text: string; tone: "error" | "info" } | undefined;
  helpOpen: boolean;
}

export interface AppStoreOptions {
  openTransport: () => Promise<MessageTransport>;
  storage?: StorageLike;
  /** requestAnimationFrame in the page. */
  scheduleFrame: (callback: () => void) => void;
  now?: () => number;
  /** The session named in the page's URL, and how to name a new one there. */
  route?: { read(): string | undefined; write(sessionId: string): void };
  setTimer?: (callback: () => void, delayMs: number) => unknown;
}

const emptyView = (): SessionView => ({
  transcript: emptyTranscript,
  stats: emptyLiveStats,
  lastSequence: 0,
});
const SNAPSHOT_INTERVAL_MS = 1000;

export class AppStore {
  private state: AppState = {
    connection: "connecting",
    connectionDetail: undefined,
    sessions: [],
    models: [],
    defaultModel: undefined,
    currentSessionId: undefined,
    view: emptyView(),
    files: { paths: [], truncated: false, query: "" },
    attachedFiles: [],
    uploads: [],
    flash: undefined,
    helpOpen: false,
  };
  private readonly views = new Map<string, SessionView>();
  private readonly listeners = new Set<() => void>();
  private readonly connection: Connection;
  private readonly storage: ViewStorage;
  private readonly now: () => number;
  private frameScheduled = false;
  private lastSnapshotAt = 0;

  constructor(private readonly options: AppStoreOptions) {
    this.storage = new ViewStorage(options.storage);
    this.now = options.now ?? (() => Date.now());
    this.connection = new Connection({
      openTransport: options.openTransport,
      onOpen: (client) => this.handleOpen(client),
      onPhase: (phase, detail) => this.update({ connection: phase, connectionDetail: detail }),
      ...(options.setTimer === undefined ? {} : { setTimer: options.setTimer }),
    });
  }

  getState(): AppState {
    return this.state;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    const wanted = this.options.route?.read() ?? this.storage.loadCurrentSession();
    if (wanted !== undefined) this.showSession(wanted);
    this.connection.start();
  }

  stop(): void {
    this.saveSnapshot();
    this.connection.stop();
  }

  /** Writes the open session's view to session storage now (the page calls it on `pagehide`). */
  saveSnapshot(): void {
    const sessionId = this.state.currentSessionId;
    if (sessionId !== undefined) this.storage.saveView(sessionId, this.state.view);
    this.lastSnapshotAt = this.now();
  }

  async openSession(sessionId: string): Promise<void> {
    const previous = this.state.currentSessionId;
    if (previous === sessionId) return;
    this.saveSnapshot();
    this.showSession(sessionId);
    const client = this.connection.current;
    if (client === undefined) return; // Attached once the connection opens.
    if (previous !== undefined) {
      client.request("session/detach", { sessionId: previous }).catch(() => undefined);
    }
    await this.attach(client, sessionId);
  }

  async newSession(cwd: string, model: string): Promise<void> {
    await this.withClient(async (client) => {
      const { session } = await client.request("session/start", {
        ...(cwd.trim() === "" ? {} : { cwd: cwd.trim() }),
        ...(model === "" ? {} : { model }),
      });
      this.update({ sessions: mergeSession(this.state.sessions, session) });
      await this.openSession(session.sessionId);
    });
  }

  /** Enter: starts a turn when idle, steers the running one otherwise. */
  async send(text: string, mode: "send" | "queue" = "send"): Promise<boolean> {
    const message = composeMessage(text, this.state.attachedFiles, this.state.uploads);
    if (message.trim() === "") return false;
    return this.withClient(async (client) => {
      if (this.state.currentSessionId === undefined) await this.newSession("", "");
      const sessionId = this.state.currentSessionId;
      if (sessionId === undefined) return false;
      const idle = this.state.view.transcript.status === "idle";
      if (mode === "queue") await client.request("turn/queue", { sessionId, text: message });
      else if (idle) await client.request("turn/start", { sessionId, text: message });
      else await client.request("turn/steer", { sessionId, text: message });
      this.update({ attachedFiles: [], uploads: [], flash: undefined });
      return true;
    }).then((sent) => sent === true);
  }

  async interrupt(): Promise<void> {
    const sessionId = this.state.currentSessionId;
    // Not gated on the status this page saw: Esc may land before `status-changed` arrives.
    if (sessionId === undefined) return;
    await this.withClient((client) => client.request("turn/interrupt", { sessionId }));
  }

  /** Undoes this edit, and first every later one (the server undoes newest first). */
  async undo(undoEntryId: string | undefined): Promise<void> {
    const sessionId = this.state.currentSessionId;
    const items = this.state.view.transcript.items;
    const target = undoEntryId ?? latestUndoableEdit(items);
    if (sessionId === undefined || target === undefined) return;
    const steps = undoStepsTo(items, target);
    await this.withClient(async (client) => {
      for (let step = 0; step < steps; step += 1) {
        const result = await client.request("edit/undo", { sessionId });
        if (result.undoEntryId === target) break;
      }
    });
  }

  async respondToApproval(approvalId: string, decision: ApprovalDecision): Promise<void> {
    const sessionId = this.state.currentSessionId;
    if (sessionId === undefined) return;
    await this.withClient((client) =>
      client.request("approval/respond", { sessionId, approvalId, decision }),
    );
  }

  async loadFiles(query: string): Promise<void> {
    const sessionId = this.state.currentSessionId;
    this.update({ files: { ...this.state.files, query } });
    if (sessionId === undefined) return;
    await this.withClient(async (client) => {
      const result = await client.request("workspace/files", {
        sessionId,
        limit: 2000,
        ...(query === "" ? {} : { query }),
      });
      if (this.state.files.query !== query) return; // A newer query answered first.
      this.update({ files: { paths: result.files, truncated: result.truncated, query } });
    });
  }

  toggleAttachedFile(path: string): void {
    const attached = this.state.attachedFiles;
    this.update({
      attachedFiles: attached.includes(path)
        ? attached.filter((file) => file !== path)
        : [...attached, path],
    });
  }

  addUpload(name: string, data: Uint8Array): void {
    const existing = this.state.uploads.reduce((sum, upload) => sum + upload.bytes, 0);
    const checked = checkUpload(name, data, existing);
    if (!checked.ok) {
      this.update({ flash: { text: checked.reason, tone: "error" } });
      return;
    }
    this.update({ uploads: [...this.state.uploads, checked.upload], flash: undefined });
  }

  removeUpload(index: number): void {
    this.update({ uploads: this.state.uploads.filter((_, position) => position !== index) });
  }

  setHelpOpen(open: boolean): void {
    this.update({ helpOpen: open });
  }

  dismissFlash(): void {
    this.update({ flash: undefined });
  }

  private showSession(sessionId: string): void {
    const view = this.views.get(sessionId) ?? this.storage.loadView(sessionId) ?? emptyView();
    this.views.set(sessionId, view);
    this.storage.saveCurrentSession(sessionId);
    this.options.route?.write(sessionId);
    this.update({
      currentSessionId: sessionId,
      view,
      files: { paths: [], truncated: false, query: "" },
      attachedFiles: [],
    });
  }

  private handleOpen(client: AgentProtocolClient): void {
    client.onSessionEvent((notification) => this.receive(notification));
    client.onSessionUpdated((session) => {
      const sessions = mergeSession(this.state.sessions, session);
      this.update({ sessions });
    });
    void this.withClient(async () => {
      const [list, models] = await Promise.all([
        client.request("session/list", {}),
        client.request("model/list", {}),
      ]);
      this.update({
        sessions: sortSessions(list.sessions),
        models: models.models.map((model) => model.id),
        defaultModel: models.defaultModel,
      });
    });
    const sessionId = this.state.currentSessionId;
    if (sessionId !== undefined) void this.attach(client, sessionId);
  }

  private async attach(
    client: AgentProtocolClient,
    sessionId: string,
    fromHistory = false,
  ): Promise<void> {
    const view = this.views.get(sessionId) ?? emptyView();
    // Events this client already delivered count too (a re-attach on the same connection).
    const lastSequence = Math.max(view.lastSequence, client.lastSequence(sessionId));
    try {
      const result = await client.request(
        "session/attach",
        fromHistory ? { sessionId } : { sessionId, lastSequence },
      );
      const current = this.views.get(sessionId) ?? emptyView();
      const transcript =
        current.transcript.items.length === 0 && result.history !== undefined
          ? { ...transcriptFromHistory(result.history), status: result.session.status }
          : { ...current.transcript, status: result.session.status };
      const model = transcript.model ?? result.session.model;
      this.setView(sessionId, { ...current, transcript: { ...transcript, model } });
      this.update({ sessions: mergeSession(this.state.sessions, result.session) });
      if (this.state.currentSessionId === sessionId) void this.loadFiles("");
    } catch (error) {
      if (error instanceof AgentProtocolError && error.code === "replay_gap" && !fromHistory) {
        // The server no longer holds what we missed: start the view over from the session's
        // history. Later events carry higher sequences, so this client's dedup keeps them.
        this.setView(sessionId, emptyView());
        await this.attach(client, sessionId, true);
        return;
      }
      this.reportError(error);
    }
  }

  private receive(notification: SessionEventNotification): void {
    const { sessionId, sequence, event } = notification;
    const view = this.views.get(sessionId) ?? emptyView();
    if (sequence <= view.lastSequence) return; // Already folded in before a reload.
    const transcript = applySessionEvent(view.transcript, event, sequence);
    this.setView(sessionId, {
      transcript,
      stats: applyLiveStats(view.stats, event, this.now()),
      lastSequence: sequence,
    });
    if (event.type === "status-changed") {
      const summary = this.state.sessions.find((session) => session.sessionId === sessionId);
      if (summary !== undefined) {
        this.update({
          sessions: mergeSession(this.state.sessions, { ...summary, status: event.status }),
        });
      }
    }
  }

  private setView(sessionId: string, view: SessionView): void {
    this.views.set(sessionId, view);
    if (this.state.currentSessionId !== sessionId) return;
    this.update({ view });
    if (this.now() - this.lastSnapshotAt >= SNAPSHOT_INTERVAL_MS) this.saveSnapshot();
  }

  private async withClient<Result>(
    action: (client: AgentProtocolClient) => Promise<Result>,
  ): Promise<Result | undefined> {
    const client = this.connection.current;
    if (client === undefined) {
      this.update({
        flash: { text: "Not connected to the Spark server; reconnecting…", tone: "error" },
      });
      return undefined;
    }
    try {
      return await action(client);
    } catch (error) {
      this.reportError(error);
      return undefined;
    }
  }

  private reportError(error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    this.update({ flash: { text, tone: "error" } });
  }

  private update(change: Partial<AppState>): void {
    this.state = { ...this.state, ...change };
    if (this.frameScheduled) return;
    this.frameScheduled = true;
    this.options.scheduleFrame(() => {
      this.frameScheduled = false;
      for (const listener of this.listeners) listener();
    });
  }
}
