// One client connection: answers its requests through the dispatcher, forwards the events of the
// sessions it is attached to, and detaches from them when it closes (the sessions keep running).
// It acts for one tenant (its API key's): every session id it names is looked up as that tenant's.
import { SESSION_EVENT_METHOD, SESSION_UPDATED_METHOD } from "../protocol/agent/session-events.ts";
import type { SessionEventNotification } from "../protocol/agent/session-events.ts";
import type { SessionSummary } from "../protocol/agent/agent-methods.ts";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import type { MessageTransport } from "../protocol/agent/message-transport.ts";
import type { AppServerOptions } from "./app-server-options.ts";
import { dispatchFrame, type AgentMethodHandlers } from "./json-rpc-dispatcher.ts";
import type { LiveSession, SessionSubscriber } from "./live-session.ts";
import { historyFromTranscript } from "./session-history.ts";
import { readHistoryEvents } from "./session-history-events.ts";
import type { SessionRegistry } from "./session-registry.ts";
import type { WorkspaceRoots } from "./workspace-roots.ts";
import { listWorkspaceFiles } from "./workspace-files.ts";

export class ClientConnection implements SessionSubscriber {
  private closed = false;
  private readonly attached = new Set<LiveSession>();
  private readonly handlers: AgentMethodHandlers;
  /** Aborted when the connection closes, so a slow request (a file walk) stops. */
  private readonly lifetime = new AbortController();

  constructor(
    private readonly transport: MessageTransport,
    private readonly registry: SessionRegistry,
    private readonly options: AppServerOptions,
    private readonly roots: WorkspaceRoots,
    /** Whose sessions this connection may see and steer (session-tenant.ts). */
    readonly tenant: string,
    onClose: () => void,
  ) {
    this.handlers = this.createHandlers();
    transport.onMessage((text) => {
      void dispatchFrame(text, this.handlers, options.maxFrameBytes).then((answer) => {
        if (answer !== undefined) this.send(answer);
      });
    });
    transport.onClose(() => {
      this.closed = true;
      this.lifetime.abort();
      for (const session of this.attached) session.detach(this);
      this.attached.clear();
      onClose();
    });
  }

  sendEvent(notification: SessionEventNotification): void {
    this.send(
      JSON.stringify({ jsonrpc: "2.0", method: SESSION_EVENT_METHOD, params: notification }),
    );
  }

  sendSessionUpdated(session: SessionSummary): void {
    this.send(
      JSON.stringify({ jsonrpc: "2.0", method: SESSION_UPDATED_METHOD, params: { session } }),
    );
  }

  close(code: number, reason: string): void {
    this.transport.close(code, reason);
  }

  private send(text: string): void {
    if (!this.closed) this.transport.send(text);
  }

  private attach(session: LiveSession, lastSequence: number | undefined): number {
    const replayed = session.attach(this, lastSequence);
    this.attached.add(session);
    return replayed;
  }

  /** A live session this connection is attached to: steering a session needs attaching first. */
  private attachedSession(sessionId: string): LiveSession {
    const session = this.registry.require(sessionId, this.tenant);
    if (!session.isAttached(this)) {
      throw new AgentProtocolError(
        "not_attached",
        `This connection is not attached to session ${sessionId}; call session/attach first.`,
      );
    }
    return session;
  }

  private createHandlers(): AgentMethodHandlers {
    return {
      "session/list": async () => ({ sessions: await this.registry.list(this.tenant) }),
      "session/start": async ({ cwd, model }) => {
        const session = await this.registry.start(cwd, model, this.tenant);
        // The starting client is attached from the first event (session-started) on.
        this.attach(session, 0);
        return { session: session.summary() };
      },
      "session/attach": async ({ sessionId, lastSequence }) => {
        const { session, resumed } = await this.registry.liveOrResumed(
          sessionId,
          lastSequence,
          this.tenant,
        );
        // A session resumed from its log has only the events since then: all of them are new.
        const replayedEvents = this.attach(
          session,
          resumed ? session.firstSequenceAfter : lastSequence,
        );
        if (lastSequence !== undefined && !resumed)
          return { session: session.summary(), replayedEvents };
        // The logged events this client gets no other way: before the resume (the replay has the
        // rest), or all so far (taken in the same step as the attach, so none is lost or doubled).
        const historyLength = resumed ? session.agent.logLengthAtOpen : session.agent.logLength;
        const history = historyFromTranscript(session.agent.transcript);
        return {
          session: session.summary(),
          replayedEvents,
          history,
          historyEvents: await readHistoryEvents(session.agent.logPath, historyLength),
        };
      },
      "session/detach": ({ sessionId }) => {
        const session = this.registry.liveSession(sessionId, this.tenant);
        const detached = session?.detach(this) ?? false;
        if (session !== undefined) this.attached.delete(session);
        return { detached };
      },
      "turn/start": async ({ sessionId, text, model }) => {
        const session = this.attachedSession(sessionId);
        if (model !== undefined && model !== session.modelName) {
          await session.useModel(await this.options.models.open(model));
        }
        session.startTurn(text);
        return { started: true as const };
      },
      "turn/steer": ({ sessionId, text }) => ({
        delivery: this.attachedSession(sessionId).steer(text),
      }),
      "turn/queue": ({ sessionId, text }) => ({
        delivery: this.attachedSession(sessionId).queue(text),
      }),
      "turn/interrupt": ({ sessionId }) => ({
        interrupted: this.attachedSession(sessionId).interrupt(),
      }),
      "edit/undo": async ({ sessionId, force }) => {
        const result = await this.attachedSession(sessionId).agent.undo(
          force === undefined ? {} : { force },
        );
        return {
          undoEntryId: result.entry.id,
          files: result.files.map((file) => ({ path: file.path, action: file.action })),
        };
      },
      "approval/respond": ({ sessionId, approvalId, decision }) => {
        this.attachedSession(sessionId).respondToApproval(approvalId, decision);
        return { resolved: true as const };
      },
      "session/compact": ({ sessionId }) => this.attachedSession(sessionId).agent.compact(),
      "model/list": async () => ({
        models: await this.options.models.list(),
        ...(this.options.models.defaultModel === undefined
          ? {}
          : { defaultModel: this.options.models.defaultModel }),
      }),
      "mcp/list": () => ({ servers: this.options.mcp?.statuses() ?? [] }),
      "workspace/files": ({ sessionId, query, limit }) =>
        listWorkspaceFiles({
          workspaceRoot: this.roots.resolve(this.registry.require(sessionId, this.tenant).cwd),
          ...(query === undefined ? {} : { query }),
          ...(limit === undefined ? {} : { limit }),
          signal: this.lifetime.signal,
        }),
    };
  }
}
