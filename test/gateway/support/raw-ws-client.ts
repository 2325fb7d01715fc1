// A plain `ws` client for the fault tests: sends anything (malformed frames included) and lets a
// test wait for the server event it expects.
import WebSocket from "ws";

export type ServerEvent = { type: string; sequence_number?: number; [key: string]: unknown };

export class RawWsClient {
  readonly events: ServerEvent[] = [];
  /** Each event's wire text as it arrived, for tests that check the bytes. */
  readonly frames: string[] = [];
  /** The handshake response's headers (x-spark-replica: which replica the socket landed on). */
  upgradeHeaders: Record<string, string | string[] | undefined> = {};
  closeCode: number | undefined;
  closeReason = "";
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data: Buffer) => {
      const text = data.toString("utf8");
      this.frames.push(text);
      this.events.push(JSON.parse(text) as ServerEvent);
      this.wake();
    });
    socket.on("close", (code: number, reason: Buffer) => {
      this.closeCode = code;
      this.closeReason = reason.toString("utf8");
      this.wake();
    });
  }

  static async connect(url: string, headers: Record<string, string> = {}): Promise<RawWsClient> {
    const socket = new WebSocket(`${url.replace(/^http/, "ws")}/v1/responses`, { headers });
    let upgradeHeaders: RawWsClient["upgradeHeaders"] = {};
    socket.once("upgrade", (response) => (upgradeHeaders = response.headers));
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const client = new RawWsClient(socket);
    client.upgradeHeaders = upgradeHeaders;
    return client;
  }

  send(event: unknown): void {
    this.socket.send(JSON.stringify(event));
  }

  sendRaw(data: string | Buffer): void {
    this.socket.send(data);
  }

  /** The first event from `fromIndex` on that matches, waiting up to `timeoutMs`. */
  async waitFor(
    predicate: (event: ServerEvent) => boolean,
    fromIndex = 0,
    timeoutMs = 10_000,
  ): Promise<ServerEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(fromIndex).find(predicate);
      if (found !== undefined) return found;
      if (this.closeCode !== undefined)
        throw new Error(`socket closed (${this.closeCode} ${this.closeReason}) while waiting`);
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(
          `timed out; last events: ${JSON.stringify(this.events.slice(-3)).slice(0, 500)}`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the response's final event (completed, incomplete or failed). */
  finalEvent(fromIndex = 0, timeoutMs?: number): Promise<ServerEvent> {
    return this.waitFor((event) => isFinal(event.type), fromIndex, timeoutMs);
  }

  async closed(timeoutMs = 10_000): Promise<number> {
    if (this.closeCode === undefined) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("socket did not close")), timeoutMs);
        this.socket.once("close", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closeCode ?? 0;
  }

  close(): void {
    this.socket.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

export function isFinal(type: string): boolean {
  return (
    type === "response.completed" || type === "response.incomplete" || type === "response.failed"
  );
}

/** The text a client would show: all text deltas of the events, in order. */
export function deltaText(events: ServerEvent[]): string {
  return events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => String(event.delta))
    .join("");
}
