// One MCP server over its whole life: connect (stdio or streamable HTTP) within its startup
// timeout, list its tools, call them under the per-call timeout, and after a failed start or an
// exit, reconnect with exponential backoff until it has failed `maxFailures` times in a row.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig } from "../../config/mcp-server-config.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { isMcpErrorCode, loadMcpSdk, type McpSdk } from "./load-mcp-sdk.ts";

export type McpServerState =
  "disabled" | "needs-consent" | "starting" | "ready" | "restarting" | "failed" | "closed";

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  /** The tools offered to the model (after enabled_tools / disabled_tools), by the server's names. */
  tools: string[];
  /** Why it is not ready: the last failure, with the last line the server wrote to stderr. */
  error?: string;
  /** Failures since it was last ready. */
  failures: number;
  /** When restarting: the delay before the next attempt. */
  retryInMs?: number;
}

export interface McpBackoff {
  initialMs: number;
  maxMs: number;
  /** Attempts in a row before it gives up; 1: never restart (a one-off probe). */
  maxFailures: number;
}

const DEFAULT_BACKOFF: McpBackoff = { initialMs: 1_000, maxMs: 30_000, maxFailures: 5 };
const STDERR_LINES_KEPT = 20;
const CLIENT_INFO = { name: "spark", version: "0.1.0" };

export class McpServerConnection {
  private state: McpServerState = "starting";
  private client: Client | undefined;
  /** Loaded by the first attempt to connect (set whenever `client` is). */
  private sdk: McpSdk | undefined;
  /** The client of the attempt under way, so close() can end a server that is still starting. */
  private connecting: Client | undefined;
  private tools: Tool[] = [];
  private error: string | undefined;
  private failures = 0;
  private retryInMs: number | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private stderrLines: string[] = [];
  /** Bumped on every attempt, so callbacks of an abandoned attempt change nothing. */
  private attempt = 0;

  constructor(
    readonly config: McpServerConfig,
    private readonly onChange: (connection: McpServerConnection) => void,
    private readonly backoff: McpBackoff = DEFAULT_BACKOFF,
  ) {
    if (!config.enabled) this.state = "disabled";
    else if (config.origin === "untrusted-project") this.state = "needs-consent";
  }

  get name(): string {
    return this.config.name;
  }

  /** Starts connecting in the background; the manager is told of each change. */
  start(): void {
    if (this.state !== "starting") return;
    void this.connect();
  }

  status(): McpServerStatus {
    return {
      name: this.name,
      state: this.state,
      tools: this.state === "ready" ? this.offeredTools().map((tool) => tool.name) : [],
      ...(this.error === undefined ? {} : { error: this.error }),
      failures: this.failures,
      ...(this.retryInMs === undefined ? {} : { retryInMs: this.retryInMs }),
    };
  }

  /** The tools offered to the model while the server is ready. */
  offeredTools(): Tool[] {
    if (this.state !== "ready") return [];
    const { enabledTools, disabledTools } = this.config;
    return this.tools.filter(
      (tool) =>
        (enabledTools === undefined || enabledTools.includes(tool.name)) &&
        !disabledTools.includes(tool.name),
    );
  }

  /**
   * Calls a tool; throws SparkError `upstream_timeout` after the per-call timeout, and
   * `upstream_error` when the server is not ready, went away during the call, or failed it.
   */
  async callTool(
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const { client, sdk } = this;
    if (this.state !== "ready" || client === undefined || sdk === undefined) {
      throw new SparkError(
        "upstream_error",
        `The MCP server "${this.name}" is ${this.state}${this.error === undefined ? "" : ` (${this.error})`}.`,
      );
    }
    const timeoutMs = this.config.toolTimeoutMs;
    try {
      const result = await client.callTool({ name: toolName, arguments: args }, undefined, {
        timeout: timeoutMs,
        signal,
      });
      return result as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      if (isMcpErrorCode(sdk, error, "RequestTimeout")) {
        throw new SparkError(
          "upstream_timeout",
          `The MCP server "${this.name}" did not answer ${toolName} within ${timeoutMs} ms (tool_timeout_ms); the call was cancelled.`,
          { cause: error },
        );
      }
      if (isMcpErrorCode(sdk, error, "ConnectionClosed")) {
        throw new SparkError(
          "upstream_error",
          `The MCP server "${this.name}" exited during the call${this.lastStderr()}; it may or may not have done the work. Spark restarts the server; check before calling again.`,
          { cause: error },
        );
      }
      throw new SparkError("upstream_error", `The MCP server "${this.name}": ${message(error)}`, {
        cause: error,
      });
    }
  }

  async close(): Promise<void> {
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    const clients = [this.client, this.connecting];
    this.client = undefined;
    this.connecting = undefined;
    if (this.state !== "disabled" && this.state !== "needs-consent") this.setState("closed");
    await Promise.allSettled(
      clients.flatMap((client) => (client === undefined ? [] : [client.close()])),
    );
  }

  private async connect(): Promise<void> {
    const attempt = ++this.attempt;
    this.stderrLines = [];
    let sdk: McpSdk;
    try {
      sdk = await loadMcpSdk();
    } catch (error) {
      if (attempt === this.attempt) this.fail(message(error));
      return;
    }
    if (attempt !== this.attempt) return;
    this.sdk = sdk;
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} });
    this.connecting = client;
    const transport = this.createTransport(sdk);
    const timeoutMs = this.config.startupTimeoutMs;
    try {
      await client.connect(transport, { timeout: timeoutMs });
      const listed = await client.listTools(undefined, { timeout: timeoutMs });
      if (attempt !== this.attempt) {
        await client.close().catch(() => undefined);
        return;
      }
      this.connecting = undefined;
      this.client = client;
      this.tools = listed.tools;
      this.failures = 0;
      this.error = undefined;
      this.retryInMs = undefined;
      client.onclose = () => this.onExit(attempt);
      client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () =>
        this.refreshTools(client, attempt),
      );
      this.setState("ready");
    } catch (error) {
      await client.close().catch(() => undefined);
      if (attempt !== this.attempt) return;
      this.connecting = undefined;
      const timedOut = isMcpErrorCode(sdk, error, "RequestTimeout");
      this.fail(
        timedOut
          ? `did not start within ${timeoutMs} ms (startup_timeout_ms)${this.lastStderr()}`
          : `${message(error)}${this.lastStderr()}`,
      );
    }
  }

  private refreshTools(client: Client, attempt: number): void {
    void client
      .listTools(undefined, { timeout: this.config.startupTimeoutMs })
      .then((listed) => {
        if (attempt !== this.attempt) return;
        this.tools = listed.tools;
        this.onChange(this);
      })
      .catch(() => undefined);
  }

  private onExit(attempt: number): void {
    if (attempt !== this.attempt || this.state !== "ready") return;
    this.client = undefined;
    this.fail(`exited${this.lastStderr()}`);
  }

  private fail(reason: string): void {
    this.failures += 1;
    this.error = reason;
    if (this.failures >= this.backoff.maxFailures) {
      this.retryInMs = undefined;
      this.setState("failed");
      return;
    }
    const delay = Math.min(this.backoff.initialMs * 2 ** (this.failures - 1), this.backoff.maxMs);
    this.retryInMs = delay;
    this.setState("restarting");
    this.retryTimer = setTimeout(() => {
      this.retryInMs = undefined;
      this.setState("starting");
      void this.connect();
    }, delay);
    // A restart pending must not keep `spark exec` alive after its turn.
    this.retryTimer.unref();
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.onChange(this);
  }

  private createTransport(sdk: McpSdk): Transport {
    const transport = this.config.transport;
    if (transport.kind === "http") {
      const headers = { ...transport.headers };
      const token =
        transport.bearerTokenEnvVar === undefined
          ? undefined
          : process.env[transport.bearerTokenEnvVar];
      if (token !== undefined && token !== "") headers.Authorization = `Bearer ${token}`;
      return new sdk.StreamableHTTPClientTransport(new URL(transport.url), {
        requestInit: { headers },
      });
    }
    const stdio = new sdk.StdioClientTransport({
      command: transport.command,
      args: transport.args,
      // The SDK adds these to its safe defaults (HOME, PATH, USER, …); nothing else is passed.
      env: transport.env,
      ...(transport.cwd === undefined ? {} : { cwd: transport.cwd }),
      // Kept for error messages; a server's log lines must not land in the terminal UI.
      stderr: "pipe",
    });
    stdio.stderr?.on("data", (chunk: Buffer | string) => this.keepStderr(String(chunk)));
    return stdio;
  }

  private keepStderr(chunk: string): void {
    const lines = chunk.split(/\r?\n/).filter((line) => line.trim() !== "");
    this.stderrLines.push(...lines);
    if (this.stderrLines.length > STDERR_LINES_KEPT)
      this.stderrLines.splice(0, this.stderrLines.length - STDERR_LINES_KEPT);
  }

  private lastStderr(): string {
    const last = this.stderrLines.at(-1);
    return last === undefined ? "" : ` (its stderr: ${last.slice(0, 300)})`;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
