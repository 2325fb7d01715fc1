// The configured MCP servers of one process (`spark exec`, the terminal UI, `spark serve`): all
// started at once in the background, so no surface waits for them; their ready tools are a tool
// source every session's registry reads before each model call.
import type { McpServerConfig } from "../../config/mcp-server-config.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { AgentTool } from "../tools/agent-tool.ts";
import type { ToolSource } from "../tools/tool-registry.ts";
import { describeMcpStatus } from "./describe-mcp-status.ts";
import { createMcpAgentTool } from "./mcp-agent-tool.ts";
import {
  McpServerConnection,
  type McpBackoff,
  type McpServerStatus,
} from "./mcp-server-connection.ts";

export type McpStatusListener = (status: McpServerStatus) => void;

export interface McpServerManagerOptions {
  backoff?: McpBackoff;
}

export class McpServerManager implements ToolSource {
  private readonly connections: McpServerConnection[];
  private readonly listeners = new Set<McpStatusListener>();
  private toolCache: AgentTool[] | undefined;

  constructor(configs: readonly McpServerConfig[], options: McpServerManagerOptions = {}) {
    this.connections = configs.map(
      (config) =>
        new McpServerConnection(config, (connection) => this.changed(connection), options.backoff),
    );
  }

  /** Starts every enabled server the user consented to; returns at once. */
  start(): void {
    for (const connection of this.connections) connection.start();
  }

  get isEmpty(): boolean {
    return this.connections.length === 0;
  }

  statuses(): McpServerStatus[] {
    return this.connections.map((connection) => connection.status());
  }

  /** Every state change of every server; returns the unsubscribe function. */
  subscribe(listener: McpStatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The ready servers' tools, as the model sees them (ToolSource). */
  tools(): readonly AgentTool[] {
    this.toolCache ??= this.connections.flatMap((connection) =>
      connection.offeredTools().map((tool) => createMcpAgentTool(connection, tool)),
    );
    return this.toolCache;
  }

  /** A name under a server that is not ready: say so, so the model waits or does without it. */
  explainMissing(name: string): string | undefined {
    const connection = this.connections.find((candidate) => name.startsWith(`${candidate.name}__`));
    if (connection === undefined) return undefined;
    const status = connection.status();
    if (status.state === "ready") return undefined;
    return `${name} is not available now: ${describeMcpStatus(status)}. Its tools join when it is ready; do without it meanwhile.`;
  }

  /**
   * Resolves once no server is starting (ready, failed, or waiting to restart), or after
   * `timeoutMs`: what `spark mcp list` and `spark doctor` wait for before they report.
   */
  async settled(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    const isSettled = (): boolean => this.statuses().every((status) => status.state !== "starting");
    if (isSettled()) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const unsubscribe = this.subscribe(() => {
        if (isSettled()) done();
      });
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /**
   * Waits for the servers marked `required` (Codex's key) to be ready; throws naming the first
   * that failed to start (the caller ends before its turn, as Codex does).
   */
  async requiredReady(signal?: AbortSignal): Promise<void> {
    const required = this.connections.filter(
      (connection) => connection.config.required && connection.config.enabled,
    );
    const problem = (): string | undefined => {
      for (const connection of required) {
        const status = connection.status();
        if (status.state === "ready" || status.state === "starting") continue;
        return describeMcpStatus(status);
      }
      return undefined;
    };
    const done = (): boolean =>
      problem() !== undefined ||
      required.every((connection) => connection.status().state === "ready");
    if (!done()) {
      await new Promise<void>((resolve) => {
        const finish = (): void => {
          unsubscribe();
          signal?.removeEventListener("abort", finish);
          resolve();
        };
        const unsubscribe = this.subscribe(() => {
          if (done()) finish();
        });
        signal?.addEventListener("abort", finish, { once: true });
      });
    }
    const failure = problem();
    if (failure !== undefined)
      throw new SparkError("upstream_error", `${failure} (required = true)`);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.allSettled(this.connections.map((connection) => connection.close()));
  }

  private changed(connection: McpServerConnection): void {
    this.toolCache = undefined;
    const status = connection.status();
    for (const listener of this.listeners) {
      try {
        listener(status);
      } catch {
        // A surface's rendering bug must not stop the server's lifecycle.
      }
    }
  }
}
