// The validated, camelCased configuration every other layer reads. The TOML file's snake_case
// shape lives in config-schema.ts; this is what loadConfig hands out.
import type { ServeConfig as GatewayServeConfig } from "../gateway/serve-config.ts";
import type {
  DECODE_LOOPS,
  DEVICE_SAMPLING_MODES,
  FIM_ORDERS,
  FIM_SPLITS,
  GpuSetting,
  ProviderPreset,
  SANDBOX_MODES,
} from "./config-choices.ts";
import type { ConfigLayer } from "./config-layer.ts";
import type { McpServerConfig } from "./mcp-server-config.ts";

export interface LlamaCppModelConfig {
  engine: "llama-cpp";
  /** Absolute path to the .gguf file (`~` expanded, relative paths resolved at load). */
  path: string;
  /** Tokens per sequence. Unset: as much as the model was trained for and memory allows, never
   * less than the agent needs (see engines/llama-cpp/choose-context-size.ts). */
  contextSize?: number;
  /** Unset means node-llama-cpp's own choice. */
  threads?: number;
  gpu: GpuSetting;
  /** Parallel sequences in the one context: how many sessions keep their KV cache at once. */
  sequences: number;
  speculative: boolean;
  /** FIM prompt with `{prefix}` and `{suffix}`, for a model without FIM tokens. */
  fimTemplate?: string;
  /** A Jinja chat template file instead of the GGUF's (llama-server's --chat-template-file). */
  chatTemplate?: string;
  /** With the model's FIM tokens: the suffix after the prefix ("psm") or before it ("spm").
   * Unset: psm. */
  fimOrder?: (typeof FIM_ORDERS)[number];
  /** With the model's FIM tokens: the prefix ends at the cursor line's start ("line") or at the
   * cursor. Unset: line. */
  fimSplit?: (typeof FIM_SPLITS)[number];
  /** Unset: SPARK_DECODE_LOOP, else the native loop when it is built. */
  decodeLoop?: (typeof DECODE_LOOPS)[number];
  /** Unset: SPARK_DEVICE_SAMPLING, else auto (on llama.cpp's backend on CUDA and Metal). */
  deviceSampling?: (typeof DEVICE_SAMPLING_MODES)[number];
}

export interface OpenAiCompatibleModelConfig {
  engine: "openai-compatible";
  /** "custom" when only base_url was given. */
  preset: ProviderPreset;
  /** The preset's URL unless base_url overrides it; the first replica's with base_urls. */
  baseUrl: string;
  /** Several replicas of the model (`base_urls`): served as one pool with session affinity. */
  baseUrls?: string[];
  /** With baseUrls: probe each replica, taking one out while its probe fails. */
  healthCheck?: { intervalMs: number; timeoutMs: number; path: string };
  /** Which API the upstream speaks: Chat Completions (default) or OpenAI's Responses. */
  api?: "chat" | "responses";
  /** With `api = "responses"`: OpenAI's WebSocket mode, one socket per session. */
  transport?: "websocket";
  /** Upstream model id; unset lets the engine use the server's only/default model. */
  model?: string;
  /** Environment variable holding the API key (look it up in `providerKeys`). */
  apiKeyEnv?: string;
  /** Context window, when the upstream's is known; the agent budgets against it. */
  contextSize?: number;
  /** The largest server-sent event read from the upstream (the engine's default: 8 MiB). */
  maxEventBytes?: number;
}

export interface ScriptModelConfig {
  engine: "script";
  /** Absolute path to the JSONL script of canned responses. */
  path: string;
}

export type ModelConfig = LlamaCppModelConfig | OpenAiCompatibleModelConfig | ScriptModelConfig;

/** The [serve] settings a config file can set; the gateway's own type has the full list. */
export type ServeConfig = Pick<
  GatewayServeConfig,
  | "host"
  | "port"
  | "apiKeys"
  | "allowedOrigins"
  | "allowedHosts"
  | "maxConcurrencyPerKey"
  | "maxConnections"
  | "maxConnectionsPerKey"
  | "maxPendingConnections"
  | "maxPendingPerAddress"
  | "handshakeTimeoutSeconds"
  | "idleTimeoutSeconds"
  | "connectionLifetimeSeconds"
  | "resumeGraceSeconds"
  | "maxFrameBytes"
  | "contextLimitTokens"
  | "store"
  | "replicaLeaseMs"
  | "drainGraceSeconds"
  | "logRepeatIntervalSeconds"
  | "responseStoreMaxEntries"
  | "responseStoreMaxBytes"
  | "responseStoreTtlSeconds"
>;

/** The [agent] settings: what the app server behind `spark serve` may touch. */
export interface AgentConfig {
  /** Absolute directories sessions may work in; empty: the directory spark serve started in. */
  workspaceRoots: string[];
}

/** The [sandbox] settings: how run_command's children are confined (src/agent/sandbox/). */
export interface SandboxConfig {
  /** "auto": bubblewrap where it works; "off": never, even where it would. */
  mode: (typeof SANDBOX_MODES)[number];
  /** Let sandboxed commands reach the network. */
  network: boolean;
  /** Variables passed to commands beyond the built-in allow-list (secrets only when named). */
  env: string[];
}

/** One `auto` rule as data; every condition given must hold (see src/router/auto-rules.ts). */
export interface AutoRuleConfig {
  /** A route alias or model name. */
  route: string;
  /** Said with every decision this rule makes, e.g. "security-sensitive". */
  reason: string;
  /** Whole words (any case, plural "s" allowed) in the latest instruction; `auth*` is a prefix. */
  keywords?: string[];
  /** Globs for files named in the instruction or touched by this turn's tool calls. */
  paths?: string[];
  minFiles?: number;
  minContextTokens?: number;
  maxInstructionChars?: number;
  /** Matches inline-completion requests (no tools, a small output budget or a prediction). */
  completion?: boolean;
}

/** `[routes]` and `[router]`; unset fields take the router's defaults. */
export interface RouterConfig {
  /** Alias → fallback chain of model names or aliases, primary first. */
  routes: Record<string, string[]>;
  clientModels: Record<string, string>;
  autoDefault?: string;
  /** Replaces the default auto rules when set. */
  rules?: AutoRuleConfig[];
  deadlineMs?: number;
  retry: {
    maxAttempts?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
    maxRetryAfterMs?: number;
  };
  breaker: { failures?: number; windowMs?: number; openMs?: number };
}

export interface CacheConfig {
  enabled: boolean;
  maxBytes: number;
  /** Unset: `cache/` under sparkHome. */
  directory?: string;
}

export interface SparkConfig {
  /** A model name from `models`, or an alias the router knows ("fast", "deep", "auto"). */
  defaultModel?: string;
  models: Record<string, ModelConfig>;
  serve: ServeConfig;
  agent: AgentConfig;
  sandbox: SandboxConfig;
  router: RouterConfig;
  /** `[cache]`: the embedded engine's prefix cache on disk; absent: on, with the defaults. */
  cache?: CacheConfig;
  /** `[mcp_servers.<name>]`: the agent's MCP servers (src/agent/mcp/). */
  mcpServers?: Record<string, McpServerConfig>;
  /** API keys found in the environment, keyed by variable name (e.g. "CEREBRAS_API_KEY"). */
  providerKeys: Record<string, string>;
}

export interface LoadedConfig extends SparkConfig {
  /** Config files that were read, in the order they were applied. */
  sources: string[];
  /** The directory holding config.toml, models/ and sessions/ (`$SPARK_HOME` or ~/.spark). */
  sparkHome: string;
  /** The nearest ./.spark/config.toml as read, when there is one: what it chose is announced
   * before the first turn (project-config-announcement.ts). */
  projectConfig?: ConfigLayer;
}

/** Command-line flags; strings are accepted so a CLI can pass raw option values. */
export interface ConfigFlags {
  /** A configured model name, or a path to a .gguf file (which becomes the model "local"). */
  model?: string;
  host?: string;
  port?: number | string;
  /** `spark serve --store redis://…`: the store replicas share. */
  store?: string;
  /** Applies to every llama-cpp model, overriding what files set. */
  threads?: number | string;
}
