// The app server's sessions: the live ones by id, started or resumed from their JSONL logs on
// demand, and the logged ones on disk for session/list. Only sessions inside the roots are shown,
// and only to their tenant: another tenant's session answers exactly as an id that does not exist.
import { AgentSession, type AgentSessionOptions } from "../agent/agent-session.ts";
import type { CommandApproval } from "../agent/approval/command-approval.ts";
import { DEFAULT_TOOLS, ToolRegistry } from "../agent/tools/tool-registry.ts";
import { readSession, readSessionHeader } from "../agent/session-store/read-session.ts";
import { findSessionLog, listSessions } from "../agent/session-store/session-directory.ts";
import type { SessionSummary } from "../protocol/agent/agent-methods.ts";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import { SparkError } from "../protocol/spark-error.ts";
import type { AppServerOptions, SessionModel } from "./app-server-options.ts";
import { LiveSession } from "./live-session.ts";
import { loggedTenant, recordedTenant } from "./session-tenant.ts";
import type { WorkspaceRoots } from "./workspace-roots.ts";

/** Session ids are log file names; anything else could walk out of the sessions folder. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9._-]+$/;
const DEFAULT_UNATTENDED_SESSION_MS = 30 * 60_000;
const LONGEST_SWEEP_INTERVAL_MS = 60_000;

/** How a session being opened is numbered, titled, and whose it is. */
interface OpeningSession {
  tenant: string;
  firstSequenceAfter: number;
  title?: string;
}

export class SessionRegistry {
  private readonly live = new Map<string, LiveSession>();
  /** Resumes under way (by tenant and id), so two clients attaching at once share one
   * AgentSession, and a foreign tenant's refused attach is never shared with the owner's. */
  private readonly resuming = new Map<string, Promise<LiveSession>>();
  /** When each live session was first seen unattended by the sweep. */
  private readonly unattendedSince = new Map<string, number>();
  private readonly sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: AppServerOptions,
    private readonly roots: WorkspaceRoots,
    /** A session's summary changed: for the connections of `tenant` only. */
    private readonly onUpdated: (session: SessionSummary, tenant: string) => void,
  ) {
    const unattendedMs = options.unattendedSessionMs ?? DEFAULT_UNATTENDED_SESSION_MS;
    if (unattendedMs > 0) {
      const interval = Math.min(Math.max(unattendedMs / 2, 10), LONGEST_SWEEP_INTERVAL_MS);
      this.sweepTimer = setInterval(() => this.closeUnattended(unattendedMs), interval);
      this.sweepTimer.unref();
    }
  }

  /** The tenant's live session with this id; another tenant's is not there for it. */
  liveSession(sessionId: string, tenant: string): LiveSession | undefined {
    const session = this.live.get(sessionId);
    return session?.tenant === tenant ? session : undefined;
  }

  /** The tenant's live session, or session_not_found (the same for another tenant's). */
  require(sessionId: string, tenant: string): LiveSession {
    const session = this.liveSession(sessionId, tenant);
    if (session === undefined) {
      throw new AgentProtocolError(
        "session_not_found",
        `No live session ${sessionId}; session/attach resumes a logged one.`,
      );
    }
    return session;
  }

  async start(
    cwd: string | undefined,
    modelName: string | undefined,
    tenant: string,
  ): Promise<LiveSession> {
    const workspaceRoot = this.roots.resolve(cwd);
    const model = await this.options.models.open(modelName);
    const session = await this.open(model, { tenant, firstSequenceAfter: 0 }, (approval) =>
      AgentSession.create({
        ...this.agentOptions(model, workspaceRoot, approval),
        ...withTenant(recordedTenant(tenant)),
      }),
    );
    session.announce(false);
    return session;
  }

  /**
   * The tenant's live session, or its logged one resumed (its cwd must still be inside the roots).
   * Another tenant's live session takes the path of one not live here: its log's header refuses it,
   * as a `--workers` sibling that never had it live refuses it.
   */
  async liveOrResumed(
    sessionId: string,
    lastSequence: number | undefined,
    tenant: string,
  ): Promise<{ session: LiveSession; resumed: boolean }> {
    const live = this.liveSession(sessionId, tenant);
    if (live !== undefined) return { session: live, resumed: false };
    const resumeKey = `${tenant}/${sessionId}`;
    let resuming = this.resuming.get(resumeKey);
    if (resuming === undefined) {
      resuming = this.resume(sessionId, lastSequence ?? 0, tenant).finally(() =>
        this.resuming.delete(resumeKey),
      );
      this.resuming.set(resumeKey, resuming);
    }
    return { session: await resuming, resumed: true };
  }

  /** The tenant's live sessions first, then its logged ones (newest first) not running here. */
  async list(tenant: string): Promise<SessionSummary[]> {
    const saved = await listSessions(this.options.sessionsDirectory);
    // The live snapshot is taken after the read: one resumed while the logs were read is live
    // now, and taken before it would be in neither part (its log dropped as live by then).
    const live = [...this.live.values()]
      .filter((session) => session.tenant === tenant)
      .map((session) => session.summary());
    const logged = saved
      .filter(
        (logged) =>
          loggedTenant(logged.tenant) === tenant &&
          !this.live.has(logged.id) &&
          this.roots.contains(logged.cwd),
      )
      .map((logged): SessionSummary => ({
        sessionId: logged.id,
        cwd: logged.cwd,
        ...(logged.model === undefined ? {} : { model: logged.model }),
        live: false,
        status: "idle",
        ...(logged.firstInstruction === "" ? {} : { title: logged.firstInstruction.slice(0, 80) }),
        startedAt: logged.startedAt,
      }));
    return [...live, ...logged];
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweepTimer);
    const sessions = [...this.live.values()];
    this.live.clear();
    await Promise.allSettled(sessions.map((session) => session.close()));
  }

  private async resume(
    sessionId: string,
    firstSequenceAfter: number,
    tenant: string,
  ): Promise<LiveSession> {
    if (!SESSION_ID_PATTERN.test(sessionId)) throw notFound(sessionId);
    // Attaching reads one log, not every log in the folder; another tenant's costs only its
    // header's read before the same refusal as a missing one (not its transcript's).
    const logPath = await findSessionLog(this.options.sessionsDirectory, sessionId);
    // A missing log costs a header read too (of the folder: open, a failing read, close), so how
    // long the refusal takes does not tell another tenant's session from no session.
    const header = await readSessionHeader(logPath ?? this.options.sessionsDirectory);
    if (logPath === undefined || header?.id !== sessionId || loggedTenant(header.tenant) !== tenant)
      throw notFound(sessionId);
    const logged = (await readSession(logPath).catch(() => undefined))?.summary;
    if (logged?.id !== sessionId || loggedTenant(logged.tenant) !== tenant)
      throw notFound(sessionId);
    if (!this.roots.contains(logged.cwd)) {
      throw new AgentProtocolError(
        "permission_denied",
        `Session ${sessionId} worked in ${logged.cwd}, outside the server's workspace roots.`,
      );
    }
    const workspaceRoot = this.roots.resolve(logged.cwd);
    const model = await this.openLoggedModel(logged.model);
    const session = await this.open(
      model,
      {
        tenant,
        firstSequenceAfter,
        ...(logged.firstInstruction === "" ? {} : { title: logged.firstInstruction }),
      },
      (approval) =>
        AgentSession.resume(logged.path, this.agentOptions(model, workspaceRoot, approval)),
    );
    session.announce(true);
    return session;
  }

  /** The model the log names, or the default when this server does not offer it. */
  private async openLoggedModel(name: string | undefined): Promise<SessionModel> {
    try {
      return await this.options.models.open(name);
    } catch (error) {
      if (name === undefined || !(error instanceof SparkError) || error.code !== "model_not_found")
        throw error;
      return this.options.models.open(undefined);
    }
  }

  private async open(
    model: SessionModel,
    { tenant, firstSequenceAfter, title }: OpeningSession,
    createAgent: (approval: CommandApproval) => Promise<AgentSession>,
  ): Promise<LiveSession> {
    let session: LiveSession;
    try {
      session = await LiveSession.open(
        {
          model,
          tenant,
          allowCommands: this.options.allowCommands === true,
          firstSequenceAfter,
          ...(this.options.replayEvents === undefined
            ? {}
            : { replayEvents: this.options.replayEvents }),
          ...(title === undefined ? {} : { title: title.slice(0, 80) }),
          onUpdated: (live) => this.onUpdated(live.summary(), live.tenant),
        },
        createAgent,
      );
    } catch (error) {
      await model.close();
      throw error;
    }
    this.live.set(session.id, session);
    this.onUpdated(session.summary(), session.tenant);
    return session;
  }

  /** Closes sessions unattended for `unattendedMs`; their logs stay, so attach resumes them. */
  private closeUnattended(unattendedMs: number): void {
    const now = Date.now();
    for (const [sessionId, session] of this.live) {
      if (!session.isUnattended) {
        this.unattendedSince.delete(sessionId);
        continue;
      }
      const since = this.unattendedSince.get(sessionId);
      if (since === undefined) this.unattendedSince.set(sessionId, now);
      else if (now - since >= unattendedMs) {
        this.unattendedSince.delete(sessionId);
        this.live.delete(sessionId);
        void session
          .close()
          .catch(() => undefined)
          .then(() => this.onUpdated({ ...session.summary(), live: false }, session.tenant));
      }
    }
  }

  private agentOptions(
    model: SessionModel,
    workspaceRoot: string,
    commandApproval: CommandApproval,
  ): AgentSessionOptions {
    return {
      client: model.client,
      workspaceRoot,
      sessionsDirectory: this.options.sessionsDirectory,
      ...(model.name === undefined ? {} : { model: model.name }),
      ...(model.contextWindowTokens === undefined
        ? {}
        : { contextWindowTokens: model.contextWindowTokens }),
      ...(this.options.instructions === undefined
        ? {}
        : { instructions: this.options.instructions }),
      commandApproval,
      ...(this.options.mcp === undefined
        ? {}
        : { registry: new ToolRegistry(DEFAULT_TOOLS, [this.options.mcp]) }),
      ...(this.options.commandSandbox === undefined
        ? {}
        : { commandSandbox: this.options.commandSandbox }),
    };
  }
}

function withTenant(tenant: string | undefined): { tenant?: string } {
  return tenant === undefined ? {} : { tenant };
}

function notFound(sessionId: string): AgentProtocolError {
  return new AgentProtocolError(
    "session_not_found",
    `No session ${sessionId} is running or logged on this server; session/list shows them.`,
  );
}
