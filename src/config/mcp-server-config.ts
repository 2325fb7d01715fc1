// `[mcp_servers.<name>]` (Codex's key names, so a Codex config block copies over) and `[mcp]`:
// the TOML schemas, the camelCase config the agent reads, and which servers a project declared.
import { z } from "zod";

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** Server names become tool-name prefixes (`<server>__<tool>`), so keep them plain. */
export const mcpServerNameSchema = z.string().regex(/^[A-Za-z0-9_-]+$/, {
  error: "MCP server names use letters, digits, _ and -",
});

const nonEmptyString = z.string().min(1);
const positiveInteger = z.int().positive();
const positiveSeconds = z.number().positive();

/** One server as one file writes it; the merged entry is the last layer's, replaced whole. */
export const mcpServerLayerSchema = z
  .strictObject({
    /** stdio: the program and its arguments, run without a shell. */
    command: nonEmptyString.optional(),
    args: z.array(z.string()).optional(),
    /** Added to the safe variables the SDK passes on (HOME, PATH, USER, …); nothing else leaks. */
    env: z.record(z.string(), z.string()).optional(),
    cwd: nonEmptyString.optional(),
    /** Streamable HTTP: the endpoint, e.g. http://127.0.0.1:3001/mcp. */
    url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
    http_headers: z.record(z.string(), z.string()).optional(),
    /** A variable holding a bearer token sent as `Authorization: Bearer …`. */
    bearer_token_env_var: nonEmptyString.optional(),
    enabled: z.boolean().optional(),
    /** `spark exec` waits for this server before its turn, and fails if it cannot start. */
    required: z.boolean().optional(),
    startup_timeout_sec: positiveSeconds.optional(),
    startup_timeout_ms: positiveInteger.optional(),
    tool_timeout_sec: positiveSeconds.optional(),
    tool_timeout_ms: positiveInteger.optional(),
    /** Only these tools are offered (all when absent); `disabled_tools` are never offered. */
    enabled_tools: z.array(nonEmptyString).optional(),
    disabled_tools: z.array(nonEmptyString).optional(),
    /** Calls run without asking: every tool of the server, or the tools named. User-only. */
    auto_approve: z.boolean().optional(),
    auto_approve_tools: z.array(nonEmptyString).optional(),
  })
  .superRefine((server, context) => {
    const hasCommand = server.command !== undefined;
    const hasUrl = server.url !== undefined;
    if (hasCommand === hasUrl) {
      context.addIssue({
        code: "custom",
        path: hasCommand ? ["url"] : ["command"],
        message: hasCommand
          ? "set command (stdio) or url (streamable HTTP), not both"
          : "required: command (a stdio server) or url (a streamable HTTP server)",
      });
    }
  });

/** `[mcp]`: which servers a project's own .spark/config.toml may start (user-only). */
export const mcpLayerSchema = z.strictObject({
  trusted_project_servers: z.array(mcpServerNameSchema).optional(),
});

export const mcpServersLayerSchema = z.record(mcpServerNameSchema, mcpServerLayerSchema);

export const mcpMergedSchema = mcpLayerSchema
  .extend({ trusted_project_servers: z.array(mcpServerNameSchema).default([]) })
  .prefault({});

type McpServerValues = z.infer<typeof mcpServerLayerSchema>;

export type McpTransportConfig =
  | {
      kind: "stdio";
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd?: string;
    }
  | {
      kind: "http";
      url: string;
      headers: Record<string, string>;
      bearerTokenEnvVar?: string;
    };

/**
 * Who asked for the server: the user's own config, or a project's .spark/config.toml that the user
 * trusted by name (`[mcp] trusted_project_servers`), or did not (then it is announced, never run).
 */
export type McpServerOrigin = "user" | "trusted-project" | "untrusted-project";

export interface McpServerConfig {
  name: string;
  transport: McpTransportConfig;
  enabled: boolean;
  required: boolean;
  startupTimeoutMs: number;
  toolTimeoutMs: number;
  enabledTools?: string[];
  disabledTools: string[];
  autoApprove: boolean;
  autoApproveTools: string[];
  origin: McpServerOrigin;
}

export function toMcpServerConfigs(
  servers: Record<string, McpServerValues>,
): Record<string, McpServerConfig> {
  const configs: Record<string, McpServerConfig> = {};
  for (const [name, server] of Object.entries(servers)) {
    configs[name] = {
      name,
      transport:
        server.url === undefined
          ? {
              kind: "stdio",
              command: server.command ?? "",
              args: server.args ?? [],
              env: server.env ?? {},
              ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
            }
          : {
              kind: "http",
              url: server.url,
              headers: server.http_headers ?? {},
              ...(server.bearer_token_env_var === undefined
                ? {}
                : { bearerTokenEnvVar: server.bearer_token_env_var }),
            },
      enabled: server.enabled ?? true,
      required: server.required ?? false,
      startupTimeoutMs: milliseconds(
        server.startup_timeout_ms,
        server.startup_timeout_sec,
        DEFAULT_STARTUP_TIMEOUT_MS,
      ),
      toolTimeoutMs: milliseconds(
        server.tool_timeout_ms,
        server.tool_timeout_sec,
        DEFAULT_TOOL_TIMEOUT_MS,
      ),
      ...(server.enabled_tools === undefined ? {} : { enabledTools: server.enabled_tools }),
      disabledTools: server.disabled_tools ?? [],
      autoApprove: server.auto_approve ?? false,
      autoApproveTools: server.auto_approve_tools ?? [],
      origin: "user",
    };
  }
  return configs;
}

/**
 * Marks the servers the project's file declared, by name (its entry replaced any of the user's
 * with the same name, so the user's trust in a name is what lets the project's command run).
 */
export function markProjectMcpServers(
  servers: Record<string, McpServerConfig>,
  projectServerNames: readonly string[],
  trustedProjectServers: readonly string[],
): void {
  for (const name of projectServerNames) {
    const server = servers[name];
    if (server === undefined) continue;
    server.origin = trustedProjectServers.includes(name) ? "trusted-project" : "untrusted-project";
  }
}

/** The command line or URL, as the user sees it in announcements and `spark mcp list`. */
export function describeMcpTransport(transport: McpTransportConfig): string {
  if (transport.kind === "http") return transport.url;
  return [transport.command, ...transport.args]
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word)))
    .join(" ");
}

function milliseconds(ms: number | undefined, seconds: number | undefined, fallback: number) {
  if (ms !== undefined) return ms;
  return seconds === undefined ? fallback : Math.round(seconds * 1000);
}
