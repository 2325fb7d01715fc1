// One running AgentSession as the app server holds it: its numbered event stream (replayable), the
// clients attached to it, its status, its model, and its approval broker. It outlives its clients.
import type { AgentSession } from "../agent/agent-session.ts";
import type { CommandApproval } from "../agent/approval/command-approval.ts";
import type { SessionSummary } from "../protocol/agent/agent-methods.ts";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import type {
  ApprovalDecision,
  SessionEvent,
  SessionEventNotification,
  SessionStatus,
} from "../protocol/agent/session-events.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { ApprovalBroker } from "./approval-broker.ts";
import { SessionEventBuffer } from "./session-event-buffer.ts";
import type { SessionModel } from "./app-server-options.ts";

/** A client connection, as a session sees it. */
export interface SessionSubscriber {
  sendEvent(notification: SessionEventNotification): void;
}

export interface LiveSessionOptions {
  model: SessionModel;
  /** Whose session it is (session-tenant.ts): only that tenant's connections see or steer it. */
  tenant: string;
  allowCommands: boolean;
  replayEvents?: number;
  /** Number events from this one on (see SessionEventBuffer). */
  firstSequenceAfter?: number;
  /** The session's summary changed (status, title, model): broadcast it to every connection. */
  onUpdated: (session: LiveSession) => void;
}

const TITLE_LENGTH = 80;

export class LiveSession {
  readonly id: string;
  readonly startedAt: string;
  readonly tenant: string;
  private status: SessionStatus = "idle";
  private title: string | undefined;
  private turnId: string | undefined;
  /** Bumped per started turn, so a finished turn does not mark a newer one idle. */
  private turnGeneration = 0;
  private model: SessionModel;
  private readonly events: SessionEventBuffer;
  private readonly subscribers = new Set<SessionSubscriber>();
  /** Questions still open, so a client attaching without lastSequence can answer them too. */
  private readonly openApprovals = new Map<string, SessionEventNotification>();
  /** Text deltas of one turn that arrived in this tick: they leave as one event (one sequence
   * number) at the tick's end, so a fast engine costs one notification per tick, not per token. */
  private pendingText: { turnId: string; text: string } | undefined;
  private pendingTextFlush: NodeJS.Immediate | undefined;

  private constructor(
    readonly agent: AgentSession,
    private readonly approvals: ApprovalBroker,
    private readonly options: LiveSessionOptions,
    title: string | undefined,
  ) {
    this.id = agent.id;
    this.startedAt = agent.startedAt;
    this.tenant = options.tenant;
    this.model = options.model;
    this.title = title;
    this.events = new SessionEventBuffer(
      agent.id,
      options.replayEvents,
      options.firstSequenceAfter,
    );
    agent.subscribe((event) => {
      if (event.type === "turn-started") {
        this.turnId = event.turnId;
        if (this.title === undefined) {
          this.title = shorten(event.text);
          this.options.onUpdated(this);
        }
      }
      this.publish(event);
    });
  }

  /** `createAgent` gets the command approval the session must use (the broker, or allow-all). */
  static async open(
    options: LiveSessionOptions & { title?: string },
    createAgent: (approval: CommandApproval) => Promise<AgentSession>,
  ): Promise<LiveSession> {
    // The broker exists before the session it reports to: the agent is created with it.
    const holder: { live?: LiveSession } = {};
    const broker = new ApprovalBroker({
      emit: (event) => holder.live?.publish(event),
      currentTurnId: () => holder.live?.turnId,
      onWaitingChange: (waiting) =>
        holder.live?.setStatus(waiting ? "awaiting-approval" : "running"),
    });
    const approval = options.allowCommands ? { autoApprove: true } : broker.commandApproval();
    const agent = await createAgent(approval);
    const live = new LiveSession(agent, broker, options, options.title);
    holder.live = live;
    return live;
  }

  get cwd(): string {
    return this.agent.workspaceRoot;
  }

  /** The sequence before this session's first event here (0 unless resumed after a reconnect). */
  get firstSequenceAfter(): number {
    return this.events.firstSequenceAfter;
  }

  get lastSequence(): number {
    this.flushPendingText();
    return this.events.lastSequence;
  }

  summary(): SessionSummary {
    return {
      sessionId: this.id,
      cwd: this.cwd,
      ...(this.model.name === undefined ? {} : { model: this.model.name }),
      live: true,
      status: this.status,
      ...(this.title === undefined ? {} : { title: this.title }),
      startedAt: this.startedAt,
      lastSequence: this.lastSequence,
    };
  }

  /**
   * Sends the events after `lastSequence` (none when it is undefined) to the subscriber, then
   * every new one. Both happen in one synchronous step, so no event falls between them.
   */
  attach(subscriber: SessionSubscriber, lastSequence: number | undefined): number {
    this.flushPendingText();
    // Without lastSequence a client gets the history instead of events, plus any open approval.
    const missed =
      lastSequence === undefined
        ? [...this.openApprovals.values()]
        : this.events.after(lastSequence);
    for (const notification of missed) subscriber.sendEvent(notification);
    this.subscribers.add(subscriber);
    return missed.length;
  }

  detach(subscriber: SessionSubscriber): boolean {
    return this.subscribers.delete(subscriber);
  }

  isAttached(subscriber: SessionSubscriber): boolean {
    return this.subscribers.has(subscriber);
  }

  /** Idle, no client attached and no question open: nothing would notice it closing. */
  get isUnattended(): boolean {
    return this.subscribers.size === 0 && this.status === "idle" && this.openApprovals.size === 0;
  }

  /** Emits `session-started` once, as the first event every client of this session sees. */
  announce(resumed: boolean): void {
    this.agent.announce(resumed);
  }

  startTurn(text: string): void {
    if (this.agent.isRunning) {
      throw new AgentProtocolError(
        "engine_busy",
        "A turn is already running in this session: steer it, queue the message, or interrupt it.",
      );
    }
    const generation = ++this.turnGeneration;
    this.setStatus("running");
    this.agent
      .submit(text)
      .catch((error: unknown) => {
        this.publish({ type: "error", error: SparkError.from(error).toJSON() });
      })
      .finally(() => {
        if (generation === this.turnGeneration) {
          this.turnId = undefined;
          this.setStatus("idle");
        }
      });
  }

  steer(text: string): "steered" | "started" {
    if (!this.agent.isRunning) {
      this.startTurn(text);
      return "started";
    }
    // Running: the message joins the turn (no new turn promise to await).
    void this.agent.steer(text);
    return "steered";
  }

  queue(text: string): "queued" | "started" {
    if (!this.agent.isRunning) {
      this.startTurn(text);
      return "started";
    }
    void this.agent.queue(text);
    return "queued";
  }

  interrupt(): boolean {
    const running = this.agent.isRunning;
    this.agent.interrupt();
    return running;
  }

  respondToApproval(approvalId: string, decision: ApprovalDecision): void {
    this.approvals.respond(approvalId, decision);
  }

  /** Switches model for the following turns; the previous model's resources are released. */
  async useModel(model: SessionModel): Promise<void> {
    if (this.agent.isRunning) {
      throw new AgentProtocolError(
        "engine_busy",
        "A turn is running; the model can change only between turns.",
      );
    }
    const previous = this.model;
    this.model = model;
    this.agent.useModel(model.client, model.name, model.contextWindowTokens);
    this.publish({ type: "model-changed", model: model.name ?? "default" });
    this.options.onUpdated(this);
    await previous.close();
  }

  get modelName(): string | undefined {
    return this.model.name;
  }

  async close(): Promise<void> {
    this.flushPendingText();
    this.subscribers.clear();
    await this.agent.close();
    await this.model.close();
  }

  private setStatus(status: SessionStatus): void {
    if (status === this.status) return;
    this.status = status;
    this.publish({ type: "status-changed", status });
    this.options.onUpdated(this);
  }

  private publish(event: SessionEvent): void {
    if (event.type === "text-delta") {
      if (this.pendingText?.turnId === event.turnId) {
        this.pendingText.text += event.text;
        return;
      }
      this.flushPendingText();
      this.pendingText = { turnId: event.turnId, text: event.text };
      // setImmediate, not a microtask: tokens read in one I/O phase of the loop then merge.
      this.pendingTextFlush = setImmediate(() => this.flushPendingText());
      return;
    }
    this.flushPendingText();
    this.send(event);
  }

  /** Sends the held text first, so every other event stays in order after it. */
  private flushPendingText(): void {
    const pending = this.pendingText;
    if (pending === undefined) return;
    this.pendingText = undefined;
    if (this.pendingTextFlush !== undefined) clearImmediate(this.pendingTextFlush);
    this.pendingTextFlush = undefined;
    this.send({ type: "text-delta", turnId: pending.turnId, text: pending.text });
  }

  private send(event: SessionEvent): void {
    const notification = this.events.append(event);
    if (event.type === "approval-requested") this.openApprovals.set(event.approvalId, notification);
    if (event.type === "approval-resolved") this.openApprovals.delete(event.approvalId);
    for (const subscriber of this.subscribers) subscriber.sendEvent(notification);
  }
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= TITLE_LENGTH ? line : `${line.slice(0, TITLE_LENGTH - 1)}…`;
}
