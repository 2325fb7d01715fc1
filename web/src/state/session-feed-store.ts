// The page's state as the server changes it: the connection, the session list, each session's
// view folded from its events (replays and gaps included), and the queue sent on when a turn ends.
// AppStore adds what a component does; the browser's pieces are passed in, so no DOM is needed.
import {
  AgentProtocolError,
  type AgentProtocolClient,
  type SessionEventNotification,
} from "../../../src/protocol/agent/index.ts";
import { emptyView, initialAppState, type AppState, type AppStoreOptions } from "./app-state.ts";
import { SentMessages, type MessageParts } from "./attachments.ts";
import { Connection } from "./connection.ts";
import { applyLiveStats } from "./live-stats.ts";
import { FrameStore } from "./frame-store.ts";
import { QueuedTurns } from "./message-queue.ts";
import { mergeSession, sortSessions } from "./session-list.ts";
import { SessionViews } from "./session-views.ts";
import { applySessionEvent, transcriptFromHistory } from "./transcript.ts";
import { ViewStorage, type SessionView } from "./view-storage.ts";

export class SessionFeedStore extends FrameStore<AppState> {
  protected readonly views: SessionViews;
  protected readonly queues: QueuedTurns;
  protected readonly sentMessages = new SentMessages();
  /** Sessions whose attach is replaying missed events now (they time nothing). */
  private readonly replaying = new Set<string>();
  protected readonly connection: Connection;
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

  /** The open session's workspace files matching `query` (a component asks; every attach too). */
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

  protected showSession(sessionId: string): void {
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

  protected async attach(
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

  protected async withClient<Result>(
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

  protected reportError(error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    this.update({ flash: { text, tone: "error" } });
  }
}
