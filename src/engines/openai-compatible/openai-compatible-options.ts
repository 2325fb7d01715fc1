// The engine's options as a user writes them, and their resolution against a preset and the
// environment into one checked, complete shape; bad options are an `invalid_config` error here.
import { SparkError } from "../../protocol/spark-error.ts";
import {
  defaultSocketPoolLimits,
  type SocketPoolLimits,
} from "./responses-websocket/responses-socket-pool.ts";
import { isPresetName, openAICompatiblePresets, type PresetName } from "./presets.ts";
import { defaultTimeouts, type OpenAICompatibleTimeouts } from "./upstream-timeouts.ts";

export interface OpenAICompatibleEngineOptions {
  /** Defaults to "custom", which needs `baseUrl`. */
  preset?: PresetName;
  /** Overrides the preset's base URL, e.g. a vLLM cluster behind a load balancer. */
  baseUrl?: string;
  apiKey?: string;
  /** Environment variable to read the key from, overriding the preset's. */
  apiKeyEnv?: string;
  /**
   * The upstream's model id; every request uses it. Optional for local servers (vLLM, SGLang,
   * llama-server, Ollama, custom): the first model their /models lists is used.
   */
  model?: string;
  headers?: Record<string, string>;
  timeouts?: Partial<OpenAICompatibleTimeouts>;
  /** "responses": the upstream speaks OpenAI's Responses API (POST /responses, its SSE events). */
  api?: "chat" | "responses";
  /**
   * With `api = "responses"`: "websocket" keeps one socket per session in OpenAI's WebSocket mode
   * (`previous_response_id` with only the new input); "http" (default) posts each request.
   */
  transport?: "http" | "websocket";
  /** WebSocket mode's bounds (lifetime, idle sockets, sessions); defaults suit OpenAI. */
  webSocket?: Partial<WebSocketTransportOptions>;
  /** Overrides the preset's answer, for a custom server that accepts predicted outputs. */
  supportsPrediction?: boolean;
  supportsStreamUsage?: boolean;
  keepAliveMs?: number;
  /** Open a pooled connection at creation (default true). */
  warmUp?: boolean;
  /** The largest server-sent event (or unfinished line) read from the upstream; default 8 MiB. */
  maxEventBytes?: number;
  /** Where API keys are looked up; process.env unless given (tests pass their own). */
  env?: Record<string, string | undefined>;
}

export interface WebSocketTransportOptions extends SocketPoolLimits {
  /** After `response.cancel`, how long the rest of the response may take before the socket is closed. */
  cancelDrainMs: number;
}

export interface ResolvedOpenAICompatibleOptions {
  api: "chat" | "responses";
  transport: "http" | "websocket";
  webSocket: WebSocketTransportOptions;
  presetName: PresetName;
  /** Without a trailing slash, e.g. https://api.cerebras.ai/v1 */
  baseUrl: string;
  origin: string;
  /** The URL's path without a trailing slash, prefixed to every endpoint path. */
  basePath: string;
  apiKey: string | undefined;
  /** Where the key was expected, for messages that tell the user what to set. */
  apiKeyEnv: string | undefined;
  /** Undefined: ask the server's /models on first use. */
  model: string | undefined;
  headers: Record<string, string>;
  timeouts: OpenAICompatibleTimeouts;
  supportsPrediction: boolean;
  supportsStreamUsage: boolean;
  maxTokensField: "max_tokens" | "max_completion_tokens";
  keepAliveMs: number;
  warmUp: boolean;
  maxEventBytes: number;
}

/** Far above any real chunk; a line longer than this is a broken or hostile upstream. */
export const defaultMaxEventBytes = 8 * 1024 * 1024;

export const defaultWebSocketOptions: WebSocketTransportOptions = {
  ...defaultSocketPoolLimits,
  cancelDrainMs: 5_000,
};

export function resolveOpenAICompatibleOptions(
  options: OpenAICompatibleEngineOptions,
): ResolvedOpenAICompatibleOptions {
  const presetName = options.preset ?? "custom";
  if (!isPresetName(presetName)) {
    throw new SparkError(
      "invalid_config",
      `Unknown OpenAI-compatible preset "${String(presetName)}".`,
    );
  }
  const preset = openAICompatiblePresets[presetName];
  // Config files are not type-checked: an unsupported API must fail loudly here, not at first use.
  const api = options.api ?? "chat";
  if ((api as string) !== "chat" && api !== "responses") {
    throw new SparkError(
      "invalid_config",
      `api = "${String(options.api)}" is not supported by the OpenAI-compatible engine; use "chat" or "responses".`,
    );
  }
  const transport = options.transport ?? "http";
  if ((transport as string) !== "http" && transport !== "websocket") {
    throw new SparkError(
      "invalid_config",
      `transport = "${String(options.transport)}" is not supported; use "http" or "websocket".`,
    );
  }
  if (transport === "websocket" && api !== "responses") {
    throw new SparkError(
      "invalid_config",
      `transport = "websocket" needs api = "responses": only the Responses API has a WebSocket mode.`,
    );
  }
  const webSocket = { ...defaultWebSocketOptions, ...definedOnly(options.webSocket ?? {}) };
  const model = options.model?.trim() === "" ? undefined : options.model;
  // A hosted provider serves hundreds of models; guessing one would surprise and cost money.
  if (model === undefined && preset.apiKeyEnv !== undefined) {
    throw new SparkError(
      "invalid_config",
      `The ${presetName} engine needs a model name (model = "...").`,
    );
  }
  const rawBaseUrl = options.baseUrl ?? preset.baseUrl;
  if (rawBaseUrl === undefined) {
    throw new SparkError(
      "invalid_config",
      `The custom OpenAI-compatible engine needs base_url, e.g. "http://127.0.0.1:8000/v1".`,
    );
  }
  const url = parseBaseUrl(rawBaseUrl);
  const basePath = url.pathname.replace(/\/+$/, "");
  const env = options.env ?? process.env;
  const apiKeyEnv = options.apiKeyEnv ?? preset.apiKeyEnv;
  const envKey = apiKeyEnv === undefined ? undefined : env[apiKeyEnv];
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(envKey);
  const timeouts = { ...defaultTimeouts, ...definedOnly(options.timeouts ?? {}) };
  for (const [name, value] of Object.entries(timeouts)) {
    if (!(Number.isFinite(value) && value > 0)) {
      throw new SparkError(
        "invalid_config",
        `timeouts.${name} must be a positive number of milliseconds.`,
      );
    }
  }
  return {
    presetName,
    api,
    transport,
    webSocket,
    baseUrl: `${url.origin}${basePath}`,
    origin: url.origin,
    basePath,
    apiKey,
    apiKeyEnv,
    model,
    headers: { ...options.headers },
    timeouts,
    supportsPrediction: options.supportsPrediction ?? preset.supportsPrediction,
    supportsStreamUsage: options.supportsStreamUsage ?? preset.supportsStreamUsage,
    maxTokensField: preset.maxTokensField,
    keepAliveMs: options.keepAliveMs ?? preset.keepAliveMs,
    warmUp: options.warmUp ?? true,
    maxEventBytes: options.maxEventBytes ?? defaultMaxEventBytes,
  };
}

function parseBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new SparkError("invalid_config", `base_url "${value}" is not a URL.`, { cause: error });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SparkError(
      "invalid_config",
      `base_url "${value}" must start with http:// or https://.`,
    );
  }
  if (url.search !== "" || url.hash !== "") {
    throw new SparkError(
      "invalid_config",
      `base_url "${value}" must not have a query or fragment.`,
    );
  }
  return url;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, entry]) => entry !== undefined),
  ) as Partial<T>;
}
