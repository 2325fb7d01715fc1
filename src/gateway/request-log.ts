// The gateway's operator log: one line per HTTP request, per finished response, per WebSocket
// connection and per error event, so an operator can see why a client failed. `spark serve`
// writes it to stderr; a gateway created without a writer logs nothing (tests, embedding). Every
// line names this replica and the caller's tenant (a hash of its key, never the key).
import { RepeatedWarnings } from "./repeated-warnings.ts";
import { describeWireError } from "./wire/wire-error.ts";

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
  tenant?: string | undefined;
}

export interface RequestLogOptions {
  /** This process's name in a shared store (or its own); on every line. */
  replica?: string;
  /** How long a repeated warning's repeats are folded into one line ([serve]
   * log_repeat_interval_seconds); default REPEAT_INTERVAL_MS. */
  repeatIntervalMs?: number;
}

/** The tenant field of a line that no authenticated caller made (or none was needed). */
const NO_TENANT = "-";

export class RequestLog {
  private readonly droppedToolTypes = new Set<string>();
  private readonly repeated: RepeatedWarnings;
  private readonly prefix: string;

  constructor(
    private readonly write: LogWriter | undefined,
    options: RequestLogOptions = {},
  ) {
    this.prefix = `replica=${options.replica ?? "-"}`;
    this.repeated = new RepeatedWarnings(
      (line) => this.emit(line),
      ...(options.repeatIntervalMs === undefined ? [] : [options.repeatIntervalMs]),
    );
  }

  http(
    method: string,
    path: string,
    status: number,
    totalMs: number,
    error?: unknown,
    tenant?: string,
  ): void {
    this.emit(`${method} ${path} ${status} ${formatMs(totalMs)}${errorSuffix(error)}`, tenant);
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
      entry.tenant,
    );
  }

  webSocket(event: "open" | "close", detail: string, tenant?: string): void {
    this.emit(`ws ${event} ${detail}`, tenant);
  }

  /** An error event sent on a WebSocket (the connection stays open). */
  webSocketError(clientEvent: string, error: unknown, tenant?: string): void {
    this.emit(`ws ${clientEvent} error${errorSuffix(error)}`, tenant);
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

  /** The shared store's trouble and recovery (what failed, and what was done instead). With a
   * `cause`, a warning that repeats (once per request while Redis is away) is written once per
   * interval with a count. */
  store(line: string, cause?: string): void {
    if (cause === undefined) this.emit(`store ${line}`);
    else this.repeated.warn(cause, `store ${line}`);
  }

  /** Writes the counts of warnings still folded (shutdown). */
  flush(): void {
    this.repeated.flush();
  }

  private emit(line: string, tenant?: string): void {
    if (this.write === undefined) return;
    this.write(`${new Date().toISOString()} ${this.prefix} tenant=${tenant ?? NO_TENANT} ${line}`);
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
