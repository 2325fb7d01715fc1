// Turns a `response.create` (WebSocket) or POST /v1/responses body into everything a run needs:
// the engine, the full conversation (previous response + new input), the chain's cache keys, and
// the response object's starting state. Every refusal here is a WireError the client can act on.
import { extendedSampling } from "./extended-sampling.ts";
import type { ChatMessage, Engine, EngineRequest, SamplingOptions } from "../../engines/engine.ts";
import type { ResponseEchoedTool, ResponseObject } from "../../protocol/responses-events.ts";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";
import { inputToMessages, referencedItemIds } from "./conversation.ts";
import type { GatewayClock } from "../gateway-clock.ts";
import { resolveModelOrThrow, type GatewayModels } from "../gateway-models.ts";
import { checkContextLimit } from "../access/limits.ts";
import { newId } from "../wire/new-id.ts";
import { echoTextFormat, outputFormatFromText } from "./output-format.ts";
import { requestTools } from "./request-tools.ts";
import type { ClientTool, GatewayStore, StoredResponse } from "../store/gateway-store.ts";
import { tenantOf, tenantSessionKey } from "../access/tenant.ts";
import { WireError } from "../wire/wire-error.ts";

export interface TurnSource {
  body: ResponseCreateBody;
  apiKey: string | undefined;
  /** performance.now() when the request arrived: time to first token counts from here. */
  receivedAt: number;
  /** Takes the time of this preparation's own work (not the wait for the model resolver). */
  clock?: GatewayClock;
  /** Aborts when the client goes away: the engine's check (a grammar build) stops with it. */
  signal?: AbortSignal;
}

export interface PreparedTurn {
  responseId: string;
  engine: Engine;
  model: string;
  engineRequest: EngineRequest;
  /** The conversation after the new input, without instructions: what the store keeps. */
  history: ChatMessage[];
  /** The client's prompt_cache_key (tenant-scoped), or the one its chain started with. */
  sessionKey: string | undefined;
  /** A chain without a sessionKey: the name Spark's own pools keep it together by. */
  affinityKey: string | undefined;
  skeleton: ResponseObject;
  /** Engine-side tool name → the client's function or custom tool (and its namespace). */
  clientTools: Map<string, ClientTool>;
  /** Hosted tool types the request offered that the engine cannot run (dropped). */
  droppedTools: string[];
  /** false: warm the conversation and the engine's cache up, produce no output. */
  generate: boolean;
  body: ResponseCreateBody;
  apiKey: string | undefined;
  /** The caller's tenant (tenant.ts): what the store scopes its responses to. */
  tenant: string;
  /** The replica that served the previous response, so holds the chain's cache: a preference. */
  cacheReplica: string | undefined;
  receivedAt: number;
}

export interface TurnDependencies {
  models: GatewayModels;
  store: GatewayStore;
  contextLimitTokens: number;
}

export async function prepareTurn(
  source: TurnSource,
  dependencies: TurnDependencies,
): Promise<PreparedTurn> {
  let startedAt = performance.now();
  const { body } = source;
  const responseId = newId("resp_");
  const previousId = body.previous_response_id ?? undefined;
  let history: ChatMessage[] = [];
  // Scoped by the caller's key: the same prompt_cache_key from another key must not reach this
  // tenant's cache.
  const tenant = tenantOf(source.apiKey);
  const clientKey =
    body.prompt_cache_key == null ? undefined : tenantSessionKey(tenant, body.prompt_cache_key);
  let sessionKey = clientKey;
  let affinityKey: string | undefined;
  const itemIds = referencedItemIds(body.input);
  // The store may be across the network: both lookups go out at once, off the gateway's clock.
  source.clock?.addSince(startedAt);
  const [previous, referencedItems] = await Promise.all([
    previousId === undefined ? undefined : dependencies.store.getResponse(previousId, tenant),
    itemIds.length === 0 ? undefined : dependencies.store.findItems(itemIds, tenant),
  ]);
  startedAt = performance.now();
  if (previousId !== undefined) {
    if (previous === undefined) {
      // OpenAI's answer for an unknown or evicted id, so clients that handle it keep working.
      throw new WireError(
        "invalid_request",
        `Previous response with id '${previousId}' not found. It may have expired or been evicted; send the full conversation as input instead.`,
        { wireCode: "previous_response_not_found", param: "previous_response_id", status: 404 },
      );
    }
    history = previous.messages;
    ({ sessionKey, affinityKey } = chainKeys(previous, clientKey, tenant));
  }
  history = [...history, ...inputToMessages(body.input, (itemId) => referencedItems?.get(itemId))];
  if (history.length === 0) {
    throw new WireError(
      "invalid_request",
      "The request has no input: send `input` (a string or a list of items).",
      {
        param: "input",
      },
    );
  }
  const instructions = body.instructions ?? undefined;
  const messages: ChatMessage[] =
    instructions === undefined ? history : [{ role: "system", content: instructions }, ...history];
  const offered = requestTools(body.tools);
  const tools =
    offered.definitions.length === 0 || body.tool_choice === "none"
      ? undefined
      : offered.definitions;
  checkContextLimit(messages, tools, dependencies.contextLimitTokens);

  const generate = body.generate !== false;
  const sampling: SamplingOptions = extendedSampling(body);
  if (body.temperature != null) sampling.temperature = body.temperature;
  if (body.top_p != null) sampling.topP = body.top_p;
  // A warm-up evaluates the prompt into the cache (prefillOnly); an engine that cannot prefill
  // alone generates one token, which the runner drops.
  if (!generate) sampling.maxOutputTokens = 1;
  else if (body.max_output_tokens != null) sampling.maxOutputTokens = body.max_output_tokens;
  const engineRequest: EngineRequest = { messages, sampling, cacheScope: tenant };
  if (sessionKey !== undefined) engineRequest.sessionKey = sessionKey;
  if (affinityKey !== undefined) engineRequest.affinityKey = affinityKey;
  if (!generate) engineRequest.prefillOnly = true;
  const outputFormat = outputFormatFromText(body.text?.format);
  if (outputFormat !== undefined) engineRequest.outputFormat = outputFormat;
  if (tools !== undefined) {
    engineRequest.tools = tools;
    const choice = body.tool_choice;
    if (choice !== undefined)
      engineRequest.toolChoice = typeof choice === "string" ? choice : { name: choice.name };
    if (body.parallel_tool_calls === false) engineRequest.parallelToolCalls = false;
  }
  // Resolved last: the router's `auto` rules read the request it would serve. Whatever else the
  // event loop runs while it is awaited is not this turn's work, so the clock stops around it.
  source.clock?.addSince(startedAt);
  const resolved = await resolveModelOrThrow(
    dependencies.models,
    body.model,
    engineRequest,
    source.signal,
  );
  startedAt = performance.now();
  engineRequest.model = resolved.model;
  const skeleton = responseSkeleton(responseId, resolved.model, body, offered.echoed);
  if (resolved.route !== undefined) skeleton.spark_route = resolved.route;
  source.clock?.addSince(startedAt);
  return {
    responseId,
    engine: resolved.engine,
    model: resolved.model,
    engineRequest,
    history,
    sessionKey,
    affinityKey,
    skeleton,
    clientTools: offered.byEngineName,
    droppedTools: offered.dropped,
    generate,
    body,
    apiKey: source.apiKey,
    tenant,
    cacheReplica: previous?.replica,
    receivedAt: source.receivedAt,
  };
}

/**
 * The keys a chained turn carries. (A request without a key and without a chain carries none: a
 * key invented per turn would reach an upstream as a new prompt_cache_key every turn, scattering
 * its cache routing.) A chain keeps the key its first turn had; a chain begun without one takes
 * the client's key when this turn names one, else its turns are kept together in Spark's own
 * pools by the chain's first response id (affinityKey), which no upstream is ever sent.
 */
function chainKeys(
  previous: StoredResponse,
  clientKey: string | undefined,
  tenant: string,
): { sessionKey: string | undefined; affinityKey: string | undefined } {
  const sessionKey = previous.sessionKey ?? clientKey;
  if (sessionKey !== undefined) return { sessionKey, affinityKey: undefined };
  return {
    sessionKey: undefined,
    affinityKey: previous.affinityKey ?? tenantSessionKey(tenant, previous.id),
  };
}

function responseSkeleton(
  id: string,
  model: string,
  body: ResponseCreateBody,
  tools: ResponseEchoedTool[],
): ResponseObject {
  const toolChoice = body.tool_choice;
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    completed_at: null,
    status: "in_progress",
    model,
    output: [],
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    tool_choice:
      toolChoice === undefined
        ? "auto"
        : typeof toolChoice === "string"
          ? toolChoice
          : { type: toolChoice.type, name: toolChoice.name },
    tools,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    store: body.store ?? true,
    text: { format: echoTextFormat(outputFormatFromText(body.text?.format)) },
    truncation: "disabled",
    spark_timings: null,
  };
}
