// The Anthropic Messages API's place on the gateway's HTTP routes: its paths, the key Anthropic's
// clients send (`x-api-key`, read as the bearer key every other path takes), errors in Anthropic's
// shape for those paths whatever refused them (auth, Host, limits, the engine), and the model list
// in Anthropic's shape for its clients.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { GatewayContext } from "../../gateway-context.ts";
import { sendJson } from "../http-io.ts";
import { handleCountTokensPost } from "./anthropic-count-tokens.ts";
import { handleMessagesPost } from "./messages-http.ts";

export const MESSAGES_PATH = "/v1/messages";
export const COUNT_TOKENS_PATH = "/v1/messages/count_tokens";

/** Paths answered in Anthropic's error shape. */
export function isAnthropicPath(path: string | undefined): boolean {
  const trimmed = path?.replace(/\/+$/, "");
  return trimmed === MESSAGES_PATH || trimmed?.startsWith(`${MESSAGES_PATH}/`) === true;
}

/** Anthropic's SDKs and Claude Code send the key as `x-api-key`: it authenticates as the same key
 * sent as a bearer token would (same tenant, limits and cache scope). */
export function anthropicKeyAsBearer(headers: IncomingHttpHeaders): void {
  const key = headers["x-api-key"];
  if (headers.authorization === undefined && typeof key === "string" && key !== "")
    headers.authorization = `Bearer ${key}`;
}

/** Serves a POST on an Anthropic path; false when the path is not one of them. */
export async function routeAnthropicPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  apiKey: string | undefined,
): Promise<boolean> {
  if (path === MESSAGES_PATH) {
    await handleMessagesPost(context, request, response, apiKey);
    return true;
  }
  if (path === COUNT_TOKENS_PATH) {
    await handleCountTokensPost(context, request, response);
    return true;
  }
  return false;
}

/** GET /v1/models asked by an Anthropic client (it sends `anthropic-version`): the same models in
 * Anthropic's list shape, which its SDK's models.list() pages through. */
export async function sendAnthropicModelList(
  context: GatewayContext,
  response: ServerResponse,
): Promise<void> {
  const models = await context.models.list();
  const data = models.map((model) => ({
    type: "model",
    id: model.id,
    display_name: model.id,
    created_at: new Date(0).toISOString(),
  }));
  sendJson(response, 200, {
    data,
    has_more: false,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  });
}
