// What the transport-agnostic app server needs from its host (`spark serve`, the terminal UI):
// where sessions may run, where their logs go, and how to open a model for a session.
import type { ModelClient } from "../agent/model-client/model-client.ts";
import type { McpServerManager } from "../agent/mcp/mcp-server-manager.ts";
import type { CommandSandbox } from "../agent/sandbox/command-sandbox.ts";

/** A model opened for one session; `close` releases what was made only for it. */
export interface SessionModel {
  name: string | undefined;
  client: ModelClient;
  contextWindowTokens?: number;
  close(): Promise<void>;
}

export interface AppServerModels {
  /** What `model/list` reports as the default. */
  defaultModel?: string;
  list(): Promise<{ id: string; engine?: string }[]>;
  /** A configured name, a .gguf path or script:<file.jsonl>; undefined: the default. */
  open(name: string | undefined): Promise<SessionModel>;
}

export interface AppServerOptions {
  /** Sessions may only work inside these directories (real paths are compared). */
  workspaceRoots: readonly string[];
  /** Where session logs go (`<sparkHome>/sessions`); session/list reads it too. */
  sessionsDirectory: string;
  models: AppServerModels;
  /** Approve every run_command (like `spark exec --allow-commands`); default: clients are asked. */
  allowCommands?: boolean;
  /** What sessions' commands run inside; default: bubblewrap where it works, no network. */
  commandSandbox?: CommandSandbox;
  /** The system message for new sessions (default: prompts/system.md plus AGENTS.md). */
  instructions?: string;
  /** MCP servers whose tools every session is offered (started by the host); mcp/list reports them. */
  mcp?: McpServerManager;
  /** Events kept per session for `session/attach {lastSequence}` (default 10,000). */
  replayEvents?: number;
  /** A frame longer than this is answered with invalid_request and not parsed (default 4 MiB). */
  maxFrameBytes?: number;
  /**
   * A live session that is idle, has no client attached and no open question for this long is
   * closed (its log stays; session/attach resumes it). Default 30 minutes; 0 keeps them forever.
   */
  unattendedSessionMs?: number;
}
