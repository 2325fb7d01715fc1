// The page's one connection to `/v1/agent`: opens it, and when it drops (network, server
// restart) opens a new one with growing pauses, carrying the sequence bookkeeping over so the
// caller's re-attach replays exactly what was missed.
import { AgentProtocolClient, type MessageTransport } from "../../../src/protocol/agent/index.ts";

export type ConnectionPhase = "connecting" | "open" | "reconnecting" | "closed";

export interface ConnectionOptions {
  openTransport: () => Promise<MessageTransport>;
  /** Called with each new client once it is open (first connect and every reconnect). */
  onOpen: (client: AgentProtocolClient, reconnected: boolean) => void;
  onPhase: (phase: ConnectionPhase, detail?: string) => void;
  setTimer?: (callback: () => void, delayMs: number) => unknown;
  /** Pauses between attempts: doubles from the first to the last. */
  retryDelaysMs?: { first: number; last: number };
}

export class Connection {
  private client: AgentProtocolClient | undefined;
  private stopped = false;
  private attempt = 0;
  private readonly setTimer: (callback: () => void, delayMs: number) => unknown;

  constructor(private readonly options: ConnectionOptions) {
    this.setTimer = options.setTimer ?? ((callback, delayMs) => setTimeout(callback, delayMs));
  }

  get current(): AgentProtocolClient | undefined {
    return this.client?.isClosed === false ? this.client : undefined;
  }

  start(): void {
    this.options.onPhase("connecting");
    void this.open(false);
  }

  stop(): void {
    this.stopped = true;
    this.client?.close();
  }

  private async open(reconnected: boolean): Promise<void> {
    if (this.stopped) return;
    let transport: MessageTransport;
    try {
      transport = await this.options.openTransport();
    } catch (error) {
      this.scheduleRetry(error instanceof Error ? error.message : String(error));
      return;
    }
    if (this.stopped) {
      transport.close(1000, "page closed");
      return;
    }
    const client = new AgentProtocolClient(transport);
    const previous = this.client;
    if (previous !== undefined) client.rememberSequences(previous);
    this.client = client;
    this.attempt = 0;
    client.onClose((info) => {
      if (this.client !== client || this.stopped) return;
      this.scheduleRetry(info.reason || "the connection closed");
    });
    this.options.onPhase("open");
    this.options.onOpen(client, reconnected);
  }

  private scheduleRetry(detail: string): void {
    if (this.stopped) return;
    const { first, last } = this.options.retryDelaysMs ?? { first: 250, last: 5000 };
    const delay = Math.min(last, first * 2 ** this.attempt);
    this.attempt += 1;
    this.options.onPhase("reconnecting", detail);
    this.setTimer(() => void this.open(true), delay);
  }
}
