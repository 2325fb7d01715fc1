// Maps the validated snake_case tree to the camelCase config the code reads, filling in what a
// provider preset implies (base URL, key variable) so consumers never consult presets themselves.
import type { MergedConfigValues } from "./config-schema.ts";
import type { AutoRuleConfig, ModelConfig, RouterConfig, SparkConfig } from "./config-types.ts";
import { toMcpServerConfigs } from "./mcp-server-config.ts";
import { PROVIDER_PRESET_DEFAULTS } from "./provider-presets.ts";
import { applyRoutingPreset } from "./routing-presets.ts";

type MergedModel = MergedConfigValues["models"][string];

export function toSparkConfig(merged: MergedConfigValues): Omit<SparkConfig, "providerKeys"> {
  const values = applyRoutingPreset(merged);
  const models: Record<string, ModelConfig> = {};
  for (const [name, model] of Object.entries(values.models)) models[name] = toModelConfig(model);
  const serve = values.serve;
  return {
    ...(values.default_model === undefined ? {} : { defaultModel: values.default_model }),
    models,
    serve: {
      host: serve.host,
      port: serve.port,
      apiKeys: serve.api_keys,
      allowedOrigins: serve.allowed_origins,
      allowedHosts: serve.allowed_hosts,
      maxConcurrencyPerKey: serve.max_concurrency_per_key,
      maxConnections: serve.max_connections,
      maxConnectionsPerKey: serve.max_connections_per_key,
      maxPendingConnections: serve.max_pending_connections,
      maxPendingPerAddress: serve.max_pending_per_address,
      handshakeTimeoutSeconds: serve.handshake_timeout_seconds,
      idleTimeoutSeconds: serve.idle_timeout_seconds,
      connectionLifetimeSeconds: serve.connection_lifetime_seconds,
      resumeGraceSeconds: serve.resume_grace_seconds,
      maxFrameBytes: serve.max_frame_bytes,
      contextLimitTokens: serve.context_limit_tokens,
      ...(serve.store === undefined ? {} : { store: serve.store }),
      replicaLeaseMs: serve.replica_lease_ms,
      drainGraceSeconds: serve.drain_grace_seconds,
      logRepeatIntervalSeconds: serve.log_repeat_interval_seconds,
      responseStoreMaxEntries: serve.response_store_max_responses,
      responseStoreMaxBytes: serve.response_store_max_bytes,
      responseStoreTtlSeconds: serve.response_store_ttl_seconds,
    },
    agent: { workspaceRoots: values.agent.workspace_roots },
    sandbox: { ...values.sandbox },
    cache: {
      enabled: values.cache.enabled,
      maxBytes: values.cache.max_bytes,
      ...(values.cache.directory === undefined ? {} : { directory: values.cache.directory }),
    },
    router: toRouterConfig(values),
    mcpServers: toMcpServerConfigs(values.mcp_servers),
  };
}

function toRouterConfig(values: MergedConfigValues): RouterConfig {
  const router = values.router;
  const routes: Record<string, string[]> = {};
  for (const [alias, targets] of Object.entries(values.routes))
    routes[alias] = typeof targets === "string" ? [targets] : targets;
  const retry = router.retry ?? {};
  const breaker = router.breaker ?? {};
  return {
    routes,
    clientModels: router.client_models ?? {},
    ...(router.auto_default === undefined ? {} : { autoDefault: router.auto_default }),
    ...(router.rules === undefined ? {} : { rules: router.rules.map(toAutoRule) }),
    ...(router.deadline_ms === undefined ? {} : { deadlineMs: router.deadline_ms }),
    retry: definedOnly({
      maxAttempts: retry.max_attempts,
      baseDelayMs: retry.base_delay_ms,
      maxDelayMs: retry.max_delay_ms,
      maxRetryAfterMs: retry.max_retry_after_ms,
    }),
    breaker: definedOnly({
      failures: breaker.failures,
      windowMs: breaker.window_ms,
      openMs: breaker.open_ms,
    }),
  };
}

function toAutoRule(
  rule: NonNullable<MergedConfigValues["router"]["rules"]>[number],
): AutoRuleConfig {
  return {
    route: rule.route,
    reason: rule.reason,
    ...definedOnly({
      keywords: rule.keywords,
      paths: rule.paths,
      minFiles: rule.min_files,
      minContextTokens: rule.min_context_tokens,
      maxInstructionChars: rule.max_instruction_chars,
      completion: rule.completion,
    }),
  };
}

/** Drops undefined fields, so optional properties stay absent under exactOptionalPropertyTypes. */
function definedOnly<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

function toModelConfig(model: MergedModel): ModelConfig {
  switch (model.engine) {
    case "llama-cpp":
      return {
        engine: "llama-cpp",
        path: model.path,
        ...(model.context_size === undefined ? {} : { contextSize: model.context_size }),
        ...(model.threads === undefined ? {} : { threads: model.threads }),
        gpu: model.gpu,
        sequences: model.sequences,
        speculative: model.speculative,
        ...(model.fim_template === undefined ? {} : { fimTemplate: model.fim_template }),
        ...(model.chat_template === undefined ? {} : { chatTemplate: model.chat_template }),
        ...(model.fim_order === undefined ? {} : { fimOrder: model.fim_order }),
        ...(model.fim_split === undefined ? {} : { fimSplit: model.fim_split }),
        ...(model.decode_loop === undefined ? {} : { decodeLoop: model.decode_loop }),
        ...(model.device_sampling === undefined ? {} : { deviceSampling: model.device_sampling }),
      };
    case "openai-compatible": {
      const preset = model.preset ?? "custom";
      const defaults = PROVIDER_PRESET_DEFAULTS[preset];
      // The schema guarantees base_url whenever the preset has no URL of its own.
      const replicas = model.base_urls?.map((url) => url.replace(/\/+$/, ""));
      const baseUrl = (replicas?.[0] ?? model.base_url ?? defaults.baseUrl ?? "").replace(
        /\/+$/,
        "",
      );
      const apiKeyEnv = model.api_key_env ?? defaults.apiKeyEnv;
      return {
        engine: "openai-compatible",
        preset,
        baseUrl,
        ...(replicas === undefined || replicas.length < 2
          ? {}
          : {
              baseUrls: replicas,
              healthCheck: {
                intervalMs: model.health_check_interval_ms ?? 5_000,
                timeoutMs: model.health_check_timeout_ms ?? 2_000,
                path: model.health_check_path ?? "/models",
              },
            }),
        ...(model.api === "responses" ? { api: "responses" as const } : {}),
        ...(model.transport === "websocket" ? { transport: "websocket" as const } : {}),
        ...(model.model === undefined ? {} : { model: model.model }),
        ...(apiKeyEnv === undefined ? {} : { apiKeyEnv }),
        ...(model.context_size === undefined ? {} : { contextSize: model.context_size }),
        ...(model.max_event_bytes === undefined ? {} : { maxEventBytes: model.max_event_bytes }),
      };
    }
    case "script":
      return { engine: "script", path: model.path };
    default:
      return model satisfies never;
  }
}
