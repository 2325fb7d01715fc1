// The one agent-protocol client every surface uses (terminal UI, browser app, editor): typed
// requests with validated results, session events delivered in order and never twice, and the
// last sequence seen per session so a reconnect can `session/attach` from exactly there.
import {
  agentMethods,
  type AgentMethodName,
  type AgentMethodParams,
  type AgentMethodResult,
  type SessionSummary,
} from "./agent-methods.ts";
import { AgentProtocolError, jsonRpcResponseSchema } from "./json-rpc.ts";
import type { MessageTransport, TransportCloseInfo } from "./message-transport.ts";
import {
  SESSION_EVENT_METHOD,
  SESSION_UPDATED_METHOD,
  sessionEventNotificationSchema,
  type SessionEvent,
  type SessionEventNotification,
} from "./session-events.ts";

interface PendingRequest {
  method: AgentMethodName;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export type SessionEventListener = (notification: SessionEventNotification) => void;

export class AgentProtocolClient {
  private nextId = 1;
  private closed: TransportCloseInfo | undefined;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly lastSequences = new Map<string, number>();
  private readonly eventListeners = new Set<SessionEventListener>();
  private readonly sessionListeners = new Set<(session: SessionSummary) => void>();
  private readonly closeListeners = new Set<(info: TransportCloseInfo) => void>();

  constructor(private readonly transport: MessageTransport) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose((info) => this.handleClose(info));
  }

  get isClosed(): boolean {
    return this.closed !== undefined;
  }

  /** Sends a request; resolves with its validated result or rejects with an AgentProtocolError. */
  request<Method extends AgentMethodName>(
    method: Method,
    params: AgentMethodParams<Method>,
    options: { signal?: AbortSignal } = {},
  ): Promise<AgentMethodResult<Method>> {
    if (this.closed !== undefined) {
      return Promise.reject(
        new AgentProtocolError(
          "connection_closed",
          "The connection to the agent server is closed.",
        ),
      );
    }
    const id = this.nextId++;
    return new Promise<AgentMethodResult<Method>>((resolve, reject) => {
      const onAbort = (): void => {
        this.pending.delete(id);
        reject(new AgentProtocolError("cancelled", `${method} was cancelled.`));
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        method,
        resolve: (result) => {
          options.signal?.removeEventListener("abort", onAbort);
          resolve(result as AgentMethodResult<Method>);
        },
        reject: (error) => {
          options.signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      });
      this.transport.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** Every session event, in sequence order, each once. Returns the unsubscribe function. */
  onSessionEvent(listener: SessionEventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** A session appeared or changed status (for session lists). */
  onSessionUpdated(listener: (session: SessionSummary) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  onClose(listener: (info: TransportCloseInfo) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** The last sequence number received for the session (0: none yet). */
  lastSequence(sessionId: string): number {
    return this.lastSequences.get(sessionId) ?? 0;
  }

  /** Carries sequence bookkeeping over from an earlier connection, so attach resumes from there. */
  rememberSequences(from: AgentProtocolClient): void {
    for (const [sessionId, sequence] of from.lastSequences)
      this.lastSequences.set(sessionId, sequence);
  }

  close(): void {
    this.transport.close(1000, "client closed");
  }

  private receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // A server never sends invalid JSON; ignoring one keeps the client alive if it did.
    }
    if (typeof message !== "object" || message === null) return;
    if ("method" in message) {
      this.receiveNotification(message);
      return;
    }
    const parsed = jsonRpcResponseSchema.safeParse(message);
    if (!parsed.success || typeof parsed.data.id !== "number") return;
    const pending = this.pending.get(parsed.data.id);
    if (pending === undefined) return;
    this.pending.delete(parsed.data.id);
    if ("error" in parsed.data) {
      pending.reject(AgentProtocolError.fromErrorObject(parsed.data.error));
      return;
    }
    const result = agentMethods[pending.method].result.safeParse(parsed.data.result);
    if (result.success) pending.resolve(result.data);
    else {
      pending.reject(
        new AgentProtocolError(
          "protocol_error",
          `The server's answer to ${pending.method} did not match the protocol: ${result.error.message}`,
        ),
      );
    }
  }

  private receiveNotification(message: { method: unknown; params?: unknown }): void {
    if (message.method === SESSION_EVENT_METHOD) {
      const parsed = sessionEventNotificationSchema.safeParse(message.params);
      if (!parsed.success) return;
      const { sessionId, sequence } = parsed.data;
      if (sequence <= this.lastSequence(sessionId)) return; // Replayed twice: shown once.
      this.lastSequences.set(sessionId, sequence);
      const notification: SessionEventNotification = {
        sessionId,
        sequence,
        event: parsed.data.event as SessionEvent,
      };
      for (const listener of this.eventListeners) listener(notification);
      return;
    }
    if (message.method === SESSION_UPDATED_METHOD) {
      const parsed = agentMethods["session/start"].result.shape.session.safeParse(
        (message.params as { session?: unknown } | undefined)?.session,
      );
      if (!parsed.success) return;
      for (const listener of this.sessionListeners) listener(parsed.data);
    }
  }

  private handleClose(info: TransportCloseInfo): void {
    if (this.closed !== undefined) return;
    this.closed = info;
    const error = new AgentProtocolError(
      "connection_closed",
      `The connection to the agent server closed${info.reason ? `: ${info.reason}` : ""}.`,
    );
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    for (const listener of this.closeListeners) listener(info);
  }
}
