// The gateway's operator log: one line per HTTP request, per finished response, per WebSocket
// connection and per error event, so an operator can see why a client failed. `spark serve`
// writes it to stderr; a gateway created without a writer logs nothing (tests, embedding).
import { describeWireError } from "./wire-error.ts";

export type LogWriter = (line: string) => void;

export interface ResponseLogEntry {
  responseId: string;
  model: string;
  transport: "ws" | "http";
  status: string;
  inputTokens: number;
  /** Prompt tokens the engine's cache already held. */
  cachedInputTokens: number;
  outputTokens: number;
  timeToFirstTokenMs: number | null;
  totalMs: number;
  /** The error or incomplete reason, when there is one. */
  reason?: string | undefined;
  /** Structured output asked for (`json_schema:<name>`, `json_object`); absent for free text. */
  format?: string | undefined;
}

export class RequestLog {
  private readonly droppedToolTypes = new Set<string>();

  constructor(private readonly write: LogWriter | undefined) {}

  http(method: string, path: string, status: number, totalMs: number, error?: unknown): void {
    this.emit(`${method} ${path} ${status} ${formatMs(totalMs)}${errorSuffix(error)}`);
  }

  response(entry: ResponseLogEntry): void {
    const ttft = entry.timeToFirstTokenMs === null ? "-" : formatMs(entry.timeToFirstTokenMs);
    this.emit(
      `response ${entry.responseId} ${entry.transport} model=${entry.model} status=${entry.status}` +
        `${entry.format === undefined ? "" : ` format=${entry.format}`}` +
        `${entry.reason === undefined ? "" : ` reason=${JSON.stringify(entry.reason)}`}` +
        ` input_tokens=${entry.inputTokens} cached_tokens=${entry.cachedInputTokens}` +
        ` output_tokens=${entry.outputTokens}` +
        ` ttft=${ttft} total=${formatMs(entry.totalMs)}`,
    );
  }

  webSocket(event: "open" | "close", detail: string): void {
    this.emit(`ws ${event} ${detail}`);
  }

  /** An error event sent on a WebSocket (the connection stays open). */
  webSocketError(clientEvent: string, error: unknown): void {
    this.emit(`ws ${clientEvent} error${errorSuffix(error)}`);
  }

  /** An engine error in its own words (an upstream's address included), which clients are not
   * shown in full. */
  engineError(line: string): void {
    this.emit(line);
  }

  /** Hosted tools (web_search, …) a client offered and no engine here can run; once per type. */
  droppedTools(types: readonly string[]): void {
    const fresh = types.filter((type) => !this.droppedToolTypes.has(type));
    if (fresh.length === 0) return;
    for (const type of fresh) this.droppedToolTypes.add(type);
    this.emit(
      `dropped hosted tools the engines cannot run: ${[...new Set(fresh)].join(", ")} (logged once per type)`,
    );
  }

  /** The shared store's trouble and recovery (what failed, and what was done instead). */
  store(line: string): void {
    this.emit(`store ${line}`);
  }

  private emit(line: string): void {
    this.write?.(`${new Date().toISOString()} ${line}`);
  }
}

function errorSuffix(error: unknown): string {
  if (error === undefined) return "";
  const described = describeWireError(error);
  return ` ${described.code}: ${described.message}`;
}

function formatMs(ms: number): string {
  return `${Math.round(ms)}ms`;
}
