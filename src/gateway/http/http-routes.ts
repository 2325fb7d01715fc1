// The gateway's HTTP routes: health, metrics, models, stored responses, and the stateless
// generation endpoints (Chat Completions, Anthropic Messages, FIM). Everything checks Host and
// Origin; when keys are configured, all but /healthz, /readyz and the browser app's shell
// (static-app.ts) need a valid API key, unknown paths included.
import type { IncomingMessage, ServerResponse } from "node:http";
import { SparkError } from "../../protocol/spark-error.ts";
import { authenticate, checkRequestSource } from "../access/auth.ts";
import {
  anthropicKeyAsBearer,
  isAnthropicPath,
  MESSAGES_PATH,
  routeAnthropicPost,
  sendAnthropicModelList,
} from "./anthropic/anthropic-routes.ts";
import { sendAnthropicError } from "./anthropic/anthropic-error.ts";
import { handleChatCompletionsPost } from "./chat-completions-http.ts";
import { handleCompletionsPost } from "./fim/completions-http.ts";
import { handleInfillPost } from "./fim/infill-http.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { clientFacingEngineError, logEngineError } from "../wire/engine-error.ts";
import { sendError, sendJson } from "./http-io.ts";
import { invalidTargetError, requestPathOf } from "../access/request-path.ts";
import { drainingError } from "../drain-state.ts";
import { inputItemsOf, inputItemsPage } from "./input-items.ts";
import { sendReadiness } from "./readiness.ts";
import { handleResponsesPost } from "./responses-http.ts";
import { serveStaticApp } from "./static-app.ts";
import { tenantOf } from "../access/tenant.ts";
import { describeWireError, WireError } from "../wire/wire-error.ts";

/** What a draining replica refuses (503, retryable); reads and stored responses are still served. */
const GENERATION_PATHS = new Set([
  "/v1/responses",
  "/v1/chat/completions",
  "/v1/completions",
  "/infill",
  MESSAGES_PATH,
]);

export function createHttpHandler(
  context: GatewayContext,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const startedAt = performance.now();
    const method = request.method ?? "GET";
    const path = requestPathOf(request.url);
    // Anthropic's clients send their key as x-api-key (on /v1/models too) and read errors in
    // Anthropic's shape.
    anthropicKeyAsBearer(request.headers);
    const anthropic = isAnthropicPath(path);
    let failure: unknown;
    // Probes would drown the log; everything else gets one line when its response is done.
    if (path !== "/healthz" && path !== "/readyz" && path !== "/metrics") {
      // Named as the request came in: a key removed by a reload meanwhile still names its tenant.
      const tenant = tenantOfRequest(request, context);
      response.once("close", () =>
        context.log.http(
          method,
          path ?? "(not a path)",
          response.statusCode,
          performance.now() - startedAt,
          failure,
          tenant,
        ),
      );
    }
    const routed =
      path === undefined
        ? Promise.reject(invalidTargetError(request.url))
        : route(context, request, response, path);
    routed.catch((error: unknown) => {
      failure = error;
      context.metrics.countError(describeWireError(error).code);
      if (error instanceof SparkError && !(error instanceof WireError))
        logEngineError(context, clientFacingEngineError(error));
      if (anthropic) sendAnthropicError(response, error);
      else sendError(response, error);
    });
  };
}

async function route(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  requestPath: string,
): Promise<void> {
  const path = requestPath.replace(/\/+$/, "") || "/";
  const method = request.method ?? "GET";
  const refused = checkRequestSource(request.headers, context.config);
  if (refused !== undefined) throw refused;
  // Draining: every answer closes its connection, so keep-alive clients reconnect elsewhere.
  if (context.drain.draining) response.shouldKeepAlive = false;
  // Liveness: the process answers (a drain included). Readiness: it should get new work.
  if (path === "/healthz" && method === "GET")
    return sendJson(response, 200, {
      status: "ok",
      ...(context.drain.draining ? { draining: true } : {}),
    });
  if (path === "/readyz" && method === "GET") return sendReadiness(context, response);
  // The app's shell (its page, hashed assets and app-config.json) is public: the browser must load
  // the page before the user can give it a key. Every other path, unknown ones too, needs the key.
  const apiKeyRequired = context.config.apiKeys.length > 0;
  if (await serveStaticApp(request, response, path, { apiKeyRequired })) return;

  const auth = authenticate(request.headers, context.config.apiKeys);
  if (!auth.ok) throw auth.error;
  const apiKey = auth.apiKey;

  if (path === "/metrics" && method === "GET") {
    const text = context.metrics.render() + (context.models.renderMetrics?.() ?? "");
    response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
    response.end(text);
    return;
  }
  if (path === "/v1/models" && method === "GET") {
    if (request.headers["anthropic-version"] !== undefined)
      return sendAnthropicModelList(context, response);
    const models = await context.models.list();
    return sendJson(response, 200, {
      object: "list",
      data: models.map((model) => ({
        id: model.id,
        object: "model",
        created: 0,
        owned_by: model.engine,
        ...(model.contextLength === undefined ? {} : { context_length: model.contextLength }),
      })),
    });
  }
  if (method === "POST" && GENERATION_PATHS.has(path)) {
    if (context.drain.draining) throw drainingError();
    context.drain.track(response);
  }
  if (path === "/v1/responses" && method === "POST")
    return handleResponsesPost(context, request, response, apiKey);
  if (method === "POST" && (await routeAnthropicPost(context, request, response, path, apiKey)))
    return;
  if (path === "/v1/chat/completions" && method === "POST") {
    return handleChatCompletionsPost(context, request, response, apiKey);
  }
  if (path === "/v1/completions" && method === "POST")
    return handleCompletionsPost(context, request, response, apiKey);
  if (path === "/infill" && method === "POST")
    return handleInfillPost(context, request, response, apiKey);
  if (path === "/v1/responses" && method === "GET") {
    throw new WireError(
      "invalid_request",
      "GET /v1/responses is the WebSocket endpoint: connect with `Upgrade: websocket`.",
      {
        wireCode: "upgrade_required",
        status: 426,
      },
    );
  }
  const inputItems = /^\/v1\/responses\/([^/]+)\/input_items$/.exec(path);
  if (inputItems?.[1] !== undefined && method === "GET") {
    const id = decodeURIComponent(inputItems[1]);
    const found = await context.store.getResponse(id, tenantOf(apiKey));
    if (found === undefined) throw notStoredError(inputItems[1]);
    const query = new URL(request.url ?? "/", "http://localhost").searchParams;
    return sendJson(response, 200, inputItemsPage(inputItemsOf(found), query));
  }
  const stored = /^\/v1\/responses\/([^/]+)$/.exec(path);
  if (stored?.[1] !== undefined && method === "GET") {
    const found = await context.store.getResponse(decodeURIComponent(stored[1]), tenantOf(apiKey));
    if (found === undefined) throw notStoredError(stored[1]);
    return sendJson(response, 200, found.response);
  }
  throw new WireError(
    "invalid_request",
    `There is no ${method} ${path} here; see /v1/responses, /v1/chat/completions, /v1/messages, /v1/completions, /infill, /v1/models.`,
    {
      wireCode: "not_found",
      status: 404,
    },
  );
}

function notStoredError(id: string): WireError {
  return new WireError(
    "invalid_request",
    `No response with id '${id}' is stored here (it may have expired).`,
    { wireCode: "not_found", status: 404 },
  );
}

/** The tenant of a request's key for the log; undefined when it presents no valid key. */
function tenantOfRequest(request: IncomingMessage, context: GatewayContext): string | undefined {
  if (context.config.apiKeys.length === 0) return tenantOf(undefined);
  const auth = authenticate(request.headers, context.config.apiKeys);
  return auth.ok ? tenantOf(auth.apiKey) : undefined;
}
