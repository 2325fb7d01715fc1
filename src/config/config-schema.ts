// The TOML shape (snake_case) in two schemas: a layer schema every file, variable and flag is
// checked against on its own (so an error names its source), and the merged schema with defaults.
import { z } from "zod";
import { defaultServeConfig as serveDefaults } from "../gateway/serve-config.ts";
import {
  DECODE_LOOPS,
  DEVICE_SAMPLING_MODES,
  FIM_ORDERS,
  FIM_SPLITS,
  GPU_BACKENDS,
  MODEL_ENGINES,
  PROVIDER_PRESETS,
  SANDBOX_MODES,
} from "./config-choices.ts";
import { mcpLayerSchema, mcpMergedSchema, mcpServersLayerSchema } from "./mcp-server-config.ts";

const positiveInteger = z.int().positive();
const nonNegativeInteger = z.int().nonnegative();
const nonEmptyString = z.string().min(1);

const gpuSchema = z.union([z.literal(false), z.enum(GPU_BACKENDS)], {
  error: `expected one of ${[...GPU_BACKENDS, false].map((value) => JSON.stringify(value)).join(" | ")}`,
});

const httpUrl = z.url({
  protocol: /^https?$/,
  error: "expected an http(s) URL such as http://127.0.0.1:8000/v1",
});

/** Appended to a replica's base_url, e.g. "/models" → http://10.0.0.1:8000/v1/models. */
const healthCheckPath = z.string().regex(/^\/[^?#\s]*$/, {
  error: 'expected a path starting with "/", such as "/models"',
});

const environmentVariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: "expected an environment variable name" });

/** Names appear in `--model`, `/v1/models` and model ids on the wire, so keep them plain. */
export const modelNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, {
  error: "model names use letters, digits and . _ : / - (starting with a letter or digit)",
});

/** One model entry in one layer: every field optional, so a project file can tweak one key. */
const modelLayerSchema = z.strictObject({
  engine: z.enum(MODEL_ENGINES).optional(),
  path: nonEmptyString.optional(),
  context_size: positiveInteger.optional(),
  threads: positiveInteger.optional(),
  gpu: gpuSchema.optional(),
  sequences: positiveInteger.optional(),
  speculative: z.boolean().optional(),
  fim_template: nonEmptyString.optional(),
  chat_template: nonEmptyString.optional(),
  fim_order: z.enum(FIM_ORDERS).optional(),
  fim_split: z.enum(FIM_SPLITS).optional(),
  decode_loop: z.enum(DECODE_LOOPS).optional(),
  device_sampling: z.enum(DEVICE_SAMPLING_MODES).optional(),
  preset: z.enum(PROVIDER_PRESETS).optional(),
  base_url: httpUrl.optional(),
  base_urls: z.array(httpUrl).min(1).optional(),
  model: nonEmptyString.optional(),
  api_key_env: environmentVariableName.optional(),
  max_event_bytes: positiveInteger.optional(),
  health_check_interval_ms: nonNegativeInteger.optional(),
  health_check_timeout_ms: positiveInteger.optional(),
  health_check_path: healthCheckPath.optional(),
  api: z.enum(["chat", "responses"]).optional(),
  transport: z.enum(["http", "websocket"]).optional(),
});

const serveFields = {
  host: nonEmptyString,
  port: z.int().min(0).max(65535),
  api_keys: z.array(nonEmptyString),
  allowed_origins: z.array(nonEmptyString),
  allowed_hosts: z.array(nonEmptyString),
  max_concurrency_per_key: positiveInteger,
  max_connections: positiveInteger,
  max_connections_per_key: positiveInteger,
  max_pending_connections: positiveInteger,
  max_pending_per_address: positiveInteger,
  handshake_timeout_seconds: positiveInteger,
  idle_timeout_seconds: nonNegativeInteger,
  connection_lifetime_seconds: positiveInteger,
  resume_grace_seconds: nonNegativeInteger,
  max_frame_bytes: positiveInteger,
  context_limit_tokens: positiveInteger,
  store: z
    .string()
    .regex(/^rediss?:\/\/[^\s]+$/, "a Redis URL: redis://host:port[/db] (or rediss:// for TLS)"),
  replica_lease_ms: z.int().min(100),
  drain_grace_seconds: nonNegativeInteger,
  log_repeat_interval_seconds: positiveInteger,
  /** The response store's caps, per tenant (API key), and how long a stored response is kept. */
  response_store_max_responses: positiveInteger,
  response_store_max_bytes: positiveInteger,
  response_store_ttl_seconds: positiveInteger,
};

const agentFields = {
  /** Directories agent sessions served by `spark serve` may work in. */
  workspace_roots: z.array(nonEmptyString),
};

/** `[cache]`: the embedded engine's prefix cache on disk (engines/llama-cpp/prefix-cache/). */
const cacheFields = {
  enabled: z.boolean(),
  /** Its size cap; the least recently used entries go first. */
  max_bytes: positiveInteger,
  /** Default: `cache/` under SPARK_HOME (~/.spark/cache). */
  directory: nonEmptyString,
};

/** 2 GiB: a few dozen conversations of a small model at 6k tokens, a handful of a 7B's. */
export const DEFAULT_CACHE_MAX_BYTES = 2 * 1024 ** 3;

const sandboxFields = {
  mode: z.enum(SANDBOX_MODES),
  network: z.boolean(),
  env: z.array(environmentVariableName),
};

/** `[routes]`: an alias names one model or alias, or a fallback chain of them (first is primary). */
const routeTargetsSchema = z.union([modelNameSchema, z.array(modelNameSchema).min(1)]);

/** One `auto` rule: every condition given must hold; the first rule that holds picks the route. */
const autoRuleSchema = z.strictObject({
  route: modelNameSchema,
  reason: nonEmptyString,
  keywords: z.array(nonEmptyString).min(1).optional(),
  paths: z.array(nonEmptyString).min(1).optional(),
  min_files: positiveInteger.optional(),
  min_context_tokens: positiveInteger.optional(),
  max_instruction_chars: positiveInteger.optional(),
  completion: z.boolean().optional(),
});

const routerFields = {
  /** Model names clients hard-code (Codex asks for `gpt-5.1-codex`) mapped to a route or model. */
  client_models: z.record(nonEmptyString, modelNameSchema),
  /** Where `auto` goes when no rule holds. */
  auto_default: modelNameSchema,
  rules: z.array(autoRuleSchema),
  deadline_ms: positiveInteger,
  retry: z
    .strictObject({
      max_attempts: positiveInteger,
      base_delay_ms: nonNegativeInteger,
      max_delay_ms: nonNegativeInteger,
      max_retry_after_ms: nonNegativeInteger,
    })
    .partial(),
  breaker: z
    .strictObject({
      failures: positiveInteger,
      window_ms: positiveInteger,
      open_ms: positiveInteger,
    })
    .partial(),
};

/** Ready-made model sets: "openai" serves gpt-5.3-codex-spark as fast and gpt-5.3-codex as deep. */
export const ROUTING_PRESETS = ["openai"] as const;

export const configLayerSchema = z.strictObject({
  preset: z.enum(ROUTING_PRESETS).optional(),
  default_model: nonEmptyString.optional(),
  models: z.record(modelNameSchema, modelLayerSchema).optional(),
  serve: z.strictObject(serveFields).partial().optional(),
  agent: z.strictObject(agentFields).partial().optional(),
  sandbox: z.strictObject(sandboxFields).partial().optional(),
  cache: z.strictObject(cacheFields).partial().optional(),
  routes: z.record(modelNameSchema, routeTargetsSchema).optional(),
  router: z.strictObject(routerFields).partial().optional(),
  mcp_servers: mcpServersLayerSchema.optional(),
  mcp: mcpLayerSchema.optional(),
});

export type ConfigLayerValues = z.infer<typeof configLayerSchema>;
export type ModelLayerValues = z.infer<typeof modelLayerSchema>;
export type RouterLayerValues = z.infer<typeof configLayerSchema>["router"];

const llamaCppModelSchema = z.strictObject({
  engine: z.literal("llama-cpp"),
  path: z.string({ error: "required: the .gguf file to load" }),
  /** Unset: chosen at load from the model's trained context and free memory. */
  context_size: positiveInteger.optional(),
  threads: positiveInteger.optional(),
  gpu: gpuSchema.default("auto"),
  sequences: positiveInteger.default(4),
  speculative: z.boolean().default(false),
  /** Fill-in-the-middle prompt for a model without FIM tokens: `{prefix}` and `{suffix}` are
   * replaced (e.g. CodeLlama's "<PRE> {prefix} <SUF>{suffix} <MID>"). */
  fim_template: z
    .string()
    .refine((template) => template.includes("{prefix}") && template.includes("{suffix}"), {
      error: "must contain {prefix} and {suffix}",
    })
    .optional(),
  /** A Jinja chat template file used instead of the GGUF's (llama-server's --chat-template-file). */
  chat_template: z.string().min(1).optional(),
  /** With the model's own FIM tokens: "psm" (prefix, suffix, middle; the default) or "spm"
   * (suffix first, so it stays cached while the user types; for models trained on SPM too). */
  fim_order: z.enum(FIM_ORDERS).optional(),
  /** With the model's own FIM tokens: "line" (the prefix ends at the cursor line's start, the
   * typed part of the line after <|fim_middle|>; the default) or "cursor". */
  fim_split: z.enum(FIM_SPLITS).optional(),
  decode_loop: z.enum(DECODE_LOOPS).optional(),
  device_sampling: z.enum(DEVICE_SAMPLING_MODES).optional(),
});

const openAiCompatibleModelSchema = z
  .strictObject({
    engine: z.literal("openai-compatible"),
    preset: z.enum(PROVIDER_PRESETS).optional(),
    base_url: httpUrl.optional(),
    /** Replicas of one model (a pool): sessions stick to one, failing over when it dies. */
    base_urls: z.array(httpUrl).min(1).optional(),
    /** Active health checks of a pool's replicas: GET {base_url}{path} every interval (0: off). */
    health_check_interval_ms: nonNegativeInteger.optional(),
    health_check_timeout_ms: positiveInteger.optional(),
    health_check_path: healthCheckPath.optional(),
    model: nonEmptyString.optional(),
    api_key_env: environmentVariableName.optional(),
    /** "responses": the upstream speaks OpenAI's Responses API (POST /responses). */
    api: z.enum(["chat", "responses"]).default("chat"),
    /** With api = "responses": "websocket" is OpenAI's WebSocket mode, one socket per session. */
    transport: z.enum(["http", "websocket"]).default("http"),
    context_size: positiveInteger.optional(),
    max_event_bytes: positiveInteger.optional(),
  })
  .superRefine((model, context) => {
    if (model.base_url !== undefined && model.base_urls !== undefined) {
      context.addIssue({
        code: "custom",
        path: ["base_urls"],
        message: "set base_url or base_urls, not both",
      });
    }
    if (model.transport === "websocket" && model.api !== "responses") {
      context.addIssue({
        code: "custom",
        path: ["transport"],
        message:
          'transport = "websocket" needs api = "responses" (only that API has a WebSocket mode)',
      });
    }
    if (model.base_url !== undefined || model.base_urls !== undefined) return;
    if (model.preset === undefined || model.preset === "custom") {
      context.addIssue({
        code: "custom",
        path: ["base_url"],
        message:
          model.preset === "custom"
            ? 'required when preset = "custom"'
            : 'required unless a preset is set (e.g. preset = "cerebras")',
      });
    }
  });

const scriptModelSchema = z.strictObject({
  engine: z.literal("script"),
  path: z.string({ error: "required: the JSONL script to replay" }),
});

export const mergedConfigSchema = z.strictObject({
  preset: z.enum(ROUTING_PRESETS).optional(),
  default_model: nonEmptyString.optional(),
  models: z
    .record(
      modelNameSchema,
      z.discriminatedUnion("engine", [
        llamaCppModelSchema,
        openAiCompatibleModelSchema,
        scriptModelSchema,
      ]),
    )
    .default({}),
  serve: z
    .strictObject({
      // The defaults live in one place, the gateway's own (serve-config.ts).
      host: serveFields.host.default(serveDefaults.host),
      port: serveFields.port.default(serveDefaults.port),
      api_keys: serveFields.api_keys.default([]),
      allowed_origins: serveFields.allowed_origins.default([]),
      allowed_hosts: serveFields.allowed_hosts.default([]),
      max_concurrency_per_key: serveFields.max_concurrency_per_key.default(
        serveDefaults.maxConcurrencyPerKey,
      ),
      max_connections: serveFields.max_connections.default(serveDefaults.maxConnections),
      max_connections_per_key: serveFields.max_connections_per_key.default(
        serveDefaults.maxConnectionsPerKey,
      ),
      max_pending_connections: serveFields.max_pending_connections.default(
        serveDefaults.maxPendingConnections,
      ),
      max_pending_per_address: serveFields.max_pending_per_address.default(
        serveDefaults.maxPendingPerAddress,
      ),
      handshake_timeout_seconds: serveFields.handshake_timeout_seconds.default(
        serveDefaults.handshakeTimeoutSeconds,
      ),
      idle_timeout_seconds: serveFields.idle_timeout_seconds.default(
        serveDefaults.idleTimeoutSeconds,
      ),
      connection_lifetime_seconds: serveFields.connection_lifetime_seconds.default(
        serveDefaults.connectionLifetimeSeconds,
      ),
      resume_grace_seconds: serveFields.resume_grace_seconds.default(
        serveDefaults.resumeGraceSeconds,
      ),
      max_frame_bytes: serveFields.max_frame_bytes.default(serveDefaults.maxFrameBytes),
      context_limit_tokens: serveFields.context_limit_tokens.default(
        serveDefaults.contextLimitTokens,
      ),
      store: serveFields.store.optional(),
      replica_lease_ms: serveFields.replica_lease_ms.default(serveDefaults.replicaLeaseMs),
      drain_grace_seconds: serveFields.drain_grace_seconds.default(serveDefaults.drainGraceSeconds),
      log_repeat_interval_seconds: serveFields.log_repeat_interval_seconds.default(
        serveDefaults.logRepeatIntervalSeconds,
      ),
      response_store_max_responses: serveFields.response_store_max_responses.default(
        serveDefaults.responseStoreMaxEntries,
      ),
      response_store_max_bytes: serveFields.response_store_max_bytes.default(
        serveDefaults.responseStoreMaxBytes,
      ),
      response_store_ttl_seconds: serveFields.response_store_ttl_seconds.default(
        serveDefaults.responseStoreTtlSeconds,
      ),
    })
    .prefault({}),
  agent: z.strictObject({ workspace_roots: agentFields.workspace_roots.default([]) }).prefault({}),
  sandbox: z
    .strictObject({
      mode: sandboxFields.mode.default("auto"),
      network: sandboxFields.network.default(false),
      env: sandboxFields.env.default([]),
    })
    .prefault({}),
  cache: z
    .strictObject({
      enabled: cacheFields.enabled.default(true),
      max_bytes: cacheFields.max_bytes.default(DEFAULT_CACHE_MAX_BYTES),
      directory: cacheFields.directory.optional(),
    })
    .prefault({}),
  routes: z.record(modelNameSchema, routeTargetsSchema).default({}),
  router: z.strictObject(routerFields).partial().prefault({}),
  mcp_servers: mcpServersLayerSchema.default({}),
  mcp: mcpMergedSchema,
});

export type MergedConfigValues = z.infer<typeof mergedConfigSchema>;
