// The page's state and every action a component can take: plain TypeScript over the agent
// protocol client, with the browser's pieces (socket, storage, animation frames, the URL) passed
// in, so it runs under vitest without a DOM.
import {
  AgentProtocolError,
  type AgentProtocolClient,
  type ApprovalDecision,
  type SessionEventNotification,
} from "../../../src/protocol/agent/index.ts";
import { emptyView, initialAppState, type AppState, type AppStoreOptions } from "./app-state.ts";
import {
  checkUpload,
  composeMessage,
  SentMessages,
  uploadSizeRefusal,
  type MessageParts,
  type UploadSource,
} from "./attachments.ts";
import { Connection } from "./connection.ts";
import { applyLiveStats } from "./live-stats.ts";
import { FrameStore } from "./frame-store.ts";
import { QueuedTurns } from "./message-queue.ts";
import { mergeSession, sortSessions } from "./session-list.ts";
import { SessionViews } from "./session-views.ts";
import {
  applySessionEvent,
  transcriptFromHistory,
  undoStepsTo,
  latestUndoableEdit,
} from "./transcript.ts";
import { ViewStorage, type SessionView } from "./view-storage.ts";

export type { AppState, AppStoreOptions, Flash } from "./app-state.ts";

export class AppStore extends FrameStore<AppState> {
  private readonly views: SessionViews;
  private readonly queues: QueuedTurns;
  private readonly sentMessages = new SentMessages();
  /** Sessions whose attach is replaying missed events now (they time nothing). */
  private readonly replaying = new Set<string>();
  private readonly connection: Connection;
  private readonly storage: ViewStorage;
  private readonly now: () => number;

  constructor(private readonly options: AppStoreOptions) {
    super(initialAppState(), options.scheduleFrame);
    this.storage = new ViewStorage(options.storage);
    this.now = options.now ?? (() => Date.now());
    this.views = new SessionViews(this.storage, this.now);
    this.queues = new QueuedTurns({
      client: () => this.connection.current,
      onChange: (sessionId, queue) => {
        if (this.state.currentSessionId === sessionId) this.update({ queue });
      },
      onError: (error) => this.reportError(error),
      now: this.now,
    });
    this.connection = new Connection({
      openTransport: options.openTransport,
      onOpen: (client) => this.handleOpen(client),
      onPhase: (phase, detail) =>
        this.update({
          connection: phase,
          connectionDetail: detail,
          // The banner said "not connected": once connected it is no longer true.
          ...(phase === "open" && this.state.flash?.cause === "disconnected"
            ? { flash: undefined }
            : {}),
        }),
      ...(options.setTimer === undefined ? {} : { setTimer: options.setTimer }),
    });
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
    this.views.saveSnapshot(this.state.currentSessionId, this.state.view);
  }

  async openSession(sessionId: string): Promise<void> {
    const previous = this.state.currentSessionId;
    if (this.state.sidebarOpen) this.update({ sidebarOpen: false });
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

  /**
   * Enter: starts a turn when idle, steers the running one otherwise. Queue: waits in this page
   * until the turn ends, then starts the next turn (the server's own queue would join the
   * running turn between two steps).
   */
  async send(text: string, mode: "send" | "queue" = "send"): Promise<boolean> {
    const { attachedFiles, uploads } = this.state;
    const message = composeMessage(text, attachedFiles, uploads);
    if (message.trim() === "") return false;
    const parts: MessageParts = {
      text: text.trim(),
      files: attachedFiles,
      uploads: uploads.map(({ name, text: content }) => ({ name, text: content })),
    };
    return this.withClient(async (client) => {
      if (this.state.currentSessionId === undefined) await this.newSession("", "");
      const sessionId = this.state.currentSessionId;
      if (sessionId === undefined) return false;
      const idle = this.state.view.transcript.status === "idle";
      this.sentMessages.remember(message, parts);
      if (mode === "queue" && !idle) this.queues.add(sessionId, message, parts);
      else if (idle) await client.request("turn/start", { sessionId, text: message });
      else await client.request("turn/steer", { sessionId, text: message });
      this.update({ attachedFiles: [], uploads: [], flash: undefined });
      return true;
    }).then((sent) => sent === true);
  }

  removeQueued(id: string): void {
    const sessionId = this.state.currentSessionId;
    if (sessionId !== undefined) this.queues.remove(sessionId, id);
  }

  /** Sends the held queue on: now if the session is idle, else when its turn ends. */
  resumeQueue(): void {
    const sessionId = this.state.currentSessionId;
    if (sessionId === undefined) return;
    this.queues.resume(sessionId);
    if (this.views.get(sessionId)?.transcript.status === "idle") {
      void this.queues.sendNext(sessionId);
    }
  }

  async interrupt(): Promise<void> {
    const sessionId = this.state.currentSessionId;
    // Not gated on the status this page saw: Esc may land before `status-changed` arrives.
    if (sessionId === undefined) return;
    this.queues.hold(sessionId);
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

  /** A picked or dropped file: refused by its size before a byte is read, else read and checked. */
  async addUploadFrom(file: UploadSource): Promise<void> {
    const existing = this.state.uploads.reduce((sum, upload) => sum + upload.bytes, 0);
    const refusal = uploadSizeRefusal(file.name, file.size, existing);
    if (refusal !== undefined) {
      this.update({ flash: { text: refusal, tone: "error" } });
      return;
    }
    this.addUpload(file.name, new Uint8Array(await file.arrayBuffer()));
  }

  removeUpload(index: number): void {
    this.update({ uploads: this.state.uploads.filter((_, position) => position !== index) });
  }

  /** Workspace files matching an `@` mention (no flash on failure: the list just stays empty). */
  async findFiles(query: string, limit = 50): Promise<readonly string[]> {
    const sessionId = this.state.currentSessionId;
    const client = this.connection.current;
    if (sessionId === undefined || client === undefined) return [];
    try {
      const result = await client.request("workspace/files", { sessionId, query, limit });
      return result.files;
    } catch {
      return [];
    }
  }

  showPreview(title: string, text: string): void {
    this.update({ preview: { title, text } });
  }

  closePreview(): void {
    this.update({ preview: undefined });
  }

  setSidebarOpen(open: boolean): void {
    this.update({ sidebarOpen: open });
  }

  setHelpOpen(open: boolean): void {
    this.update({ helpOpen: open });
  }

  dismissFlash(): void {
    this.update({ flash: undefined });
  }

  private showSession(sessionId: string): void {
    const view = this.views.restore(sessionId);
    this.storage.saveCurrentSession(sessionId);
    this.options.route?.write(sessionId);
    this.update({
      currentSessionId: sessionId,
      view,
      queue: this.queues.of(sessionId),
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
      // A session resumed while the server listed (this page's own attach, after a restart) is
      // in neither the list's live part nor its logged part: keep the open one and live ones.
      const listed = new Set(list.sessions.map((session) => session.sessionId));
      const liveMeanwhile = this.state.sessions.filter(
        (session) =>
          !listed.has(session.sessionId) &&
          (session.live || session.sessionId === this.state.currentSessionId),
      );
      this.update({
        sessions: sortSessions([...list.sessions, ...liveMeanwhile]),
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
    // Events replayed before the answer arrive first; they are history, not timing.
    this.replaying.add(sessionId);
    try {
      const result = await client.request(
        "session/attach",
        fromHistory ? { sessionId } : { sessionId, lastSequence },
      );
      this.replaying.delete(sessionId);
      const current = this.views.get(sessionId) ?? emptyView();
      const readMessage = (text: string): MessageParts => this.sentMessages.read(text);
      const transcript =
        current.transcript.items.length === 0 && result.history !== undefined
          ? { ...transcriptFromHistory(result.history, readMessage), status: result.session.status }
          : { ...current.transcript, status: result.session.status };
      const model = transcript.model ?? result.session.model;
      this.setView(sessionId, { ...current, transcript: { ...transcript, model } });
      this.update({ sessions: mergeSession(this.state.sessions, result.session) });
      if (this.state.currentSessionId === sessionId) void this.loadFiles("");
      if (result.session.status === "idle") void this.queues.sendNext(sessionId);
    } catch (error) {
      this.replaying.delete(sessionId);
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
    const replayed = this.replaying.has(sessionId);
    const transcript = applySessionEvent(view.transcript, event, sequence, (text) =>
      this.sentMessages.read(text),
    );
    this.setView(sessionId, {
      transcript,
      stats: applyLiveStats(view.stats, event, replayed ? undefined : this.now()),
      lastSequence: sequence,
    });
    if (event.type === "interrupted" && event.reason === "interrupt" && !replayed) {
      this.queues.hold(sessionId);
    }
    if (event.type === "status-changed" && event.status === "idle" && !replayed) {
      void this.queues.sendNext(sessionId);
    }
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
    if (this.views.snapshotDue()) this.saveSnapshot();
  }

  private async withClient<Result>(
    action: (client: AgentProtocolClient) => Promise<Result>,
  ): Promise<Result | undefined> {
    const client = this.connection.current;
    if (client === undefined) {
      this.update({
        flash: {
          text: "Not connected to the Spark server; reconnecting…",
          tone: "error",
          cause: "disconnected",
        },
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
}
