// How the gateway finds an engine for a request's `model`: a router-like resolver (the CLI wires
// the real router) and a helper that serves every model one engine lists.
import { WireError } from "./wire/wire-error.ts";
import type { Engine, EngineRequest, ModelInfo } from "../engines/engine.ts";
import type { SparkRoute } from "../protocol/responses-events.ts";

export interface ResolvedModel {
  engine: Engine;
  /** The model id reported back to the client and passed to the engine. */
  model: string;
  /** How a router chose (reported to the client as `spark_route`). */
  route?: SparkRoute;
}

export interface GatewayModels {
  /** The engine for a model name, or for the default model when the request names none;
   * undefined when no such model is served (the client gets model_not_found). */
  resolve(model: string | undefined, request?: EngineRequest): Promise<ResolvedModel | undefined>;
  list(): Promise<ModelInfo[]>;
  /** Extra Prometheus text for /metrics (the router's attempts, breakers, fallbacks). */
  renderMetrics?(): string;
}

/** Serves the models one engine lists; the default is `defaultModel` or the first listed. */
export function modelsFromEngine(engine: Engine, defaultModel?: string): GatewayModels {
  let listing: Promise<ModelInfo[]> | undefined;
  const list = (): Promise<ModelInfo[]> => {
    listing ??= engine.listModels().catch((error: unknown) => {
      // A failed listing is retried on the next request rather than cached.
      listing = undefined;
      throw error;
    });
    return listing;
  };
  return {
    list,
    async resolve(model) {
      const models = await list();
      const wanted = model ?? defaultModel ?? models[0]?.id;
      if (wanted === undefined) return undefined;
      return models.some((info) => info.id === wanted) ? { engine, model: wanted } : undefined;
    },
  };
}

/**
 * The engine for a request's `model`, or the wire error every endpoint answers an unknown one
 * with; also the engine's own refusal of the request, where it can tell before any output.
 */
export async function resolveModelOrThrow(
  models: GatewayModels,
  model: string | undefined,
  request?: EngineRequest,
  signal?: AbortSignal,
  /** Where the request's output format is (Chat Completions: response_format): the 400's param. */
  formatParam = "text.format",
): Promise<ResolvedModel> {
  const resolved = await models.resolve(model, request);
  if (resolved !== undefined) {
    if (request !== undefined) await throwIfEngineRefuses(resolved, request, signal, formatParam);
    return resolved;
  }
  const name =
    model === undefined ? "no model was named and none is configured as default" : `'${model}'`;
  throw new WireError(
    "model_not_found",
    `The model ${name} is not served here; GET /v1/models lists the models.`,
    { param: "model" },
  );
}

/**
 * Asked before a response starts, so a refusal is an HTTP 400 even on a streamed request. Only
 * structured output needs the engine's judgement today (can its grammar express the schema?);
 * other requests skip the call and its await.
 */
async function throwIfEngineRefuses(
  resolved: ResolvedModel,
  request: EngineRequest,
  signal: AbortSignal | undefined,
  formatParam: string,
): Promise<void> {
  if (request.outputFormat === undefined || resolved.engine.checkRequest === undefined) return;
  const refusal = await resolved.engine.checkRequest(
    { ...request, model: resolved.model },
    signal === undefined ? {} : { signal },
  );
  if (refusal === undefined) return;
  throw new WireError(refusal.code, refusal.message, {
    cause: refusal,
    retryable: refusal.retryable,
    ...(refusal.code === "invalid_request" ? { param: formatParam } : {}),
  });
}
