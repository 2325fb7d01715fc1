// POST /v1/chat/completions: the stateless compatibility path, streamed as `data:` chunks ending
// in [DONE], or answered as one chat.completion. No store: Chat Completions has no chaining.
import type { IncomingMessage, ServerResponse } from "node:http";
import { applyStreamEvent, emptyStreamOutcome } from "../../engines/collect-stream.ts";
import type { FinishReason, Usage } from "../../engines/engine.ts";
import {
  chatCompletionRequestSchema,
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionUsage,
  type ChatFinishReason,
} from "../../protocol/chat-completions.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { toEngineChatRequest } from "./chat-request.ts";
import { clientFacingEngineError, logEngineError } from "../wire/engine-error.ts";
import { GatewayClock } from "../gateway-clock.ts";
import { resolveModelOrThrow } from "../gateway-models.ts";
import type { GatewayContext } from "../gateway-context.ts";
import { statusOfFinish } from "../metrics.ts";
import { readJsonBody, sendError, sendJson } from "./http-io.ts";
import { checkContextLimit } from "../access/limits.ts";
import { ChatChunkStream } from "./chat-chunk-stream.ts";
import { newId } from "../wire/new-id.ts";
import { describeOutputFormat } from "../turn/output-format.ts";
import { schemaError } from "../wire/schema-error.ts";
import { sparkTimings } from "../turn/spark-timings.ts";
import { startEventStream } from "./sse-transport.ts";
import { tenantOf, tenantSessionKey } from "../access/tenant.ts";
import { describeWireError } from "../wire/wire-error.ts";

export async function handleChatCompletionsPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string | undefined,
): Promise<void> {
  const receivedAt = performance.now();
  const clock = new GatewayClock();
  const raw = await readJsonBody(request, context.config.maxFrameBytes, clock);
  let startedAt = performance.now();
  const parsed = chatCompletionRequestSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  const body = parsed.data;
  const engineRequest = toEngineChatRequest(body, body.model ?? "");
  // The router may look at the request (auto routing), so it is built before the model resolves;
  // the wait for it is not the gateway's own time.
  clock.addSince(startedAt);
  const controller = new AbortController();
  // Before the engine's check (a grammar build), so a client gone during it is not missed.
  response.on("close", () => {
    if (!response.writableFinished) controller.abort("disconnected");
  });
  const resolved = await resolveModelOrThrow(
    context.models,
    body.model,
    engineRequest,
    controller.signal,
    "response_format",
  );
  startedAt = performance.now();
  engineRequest.model = resolved.model;
  const tenant = tenantOf(apiKey);
  if (engineRequest.sessionKey !== undefined)
    engineRequest.sessionKey = tenantSessionKey(tenant, engineRequest.sessionKey);
  engineRequest.cacheScope = tenant;
  checkContextLimit(engineRequest.messages, engineRequest.tools, context.config.contextLimitTokens);
  clock.addSince(startedAt);

  const release = await context.limiter.acquire(apiKey);
  const id = newId("chatcmpl-");
  const created = Math.floor(Date.now() / 1000);
  const chunks =
    body.stream === true
      ? new ChatChunkStream(response, { id, created, model: resolved.model }, clock)
      : undefined;

  const outcome = emptyStreamOutcome();
  const toolIndexes = new Map<string, number>();
  let firstTokenAt: number | undefined;
  context.metrics.streamStarted();
  let endRun: () => void = () => {};
  const run = new Promise<void>((resolve) => (endRun = resolve));
  context.runs.add(run);
  try {
    if (chunks !== undefined) {
      startEventStream(response);
      chunks.chunk({ role: "assistant", content: "" });
    }
    for await (const event of resolved.engine.stream(engineRequest, {
      signal: controller.signal,
    })) {
      startedAt = performance.now();
      applyStreamEvent(outcome, event);
      if (event.type === "text-delta") {
        firstTokenAt ??= startedAt;
        chunks?.content(event.text);
      } else if (event.type === "reasoning-delta") {
        firstTokenAt ??= startedAt;
        chunks?.content(event.text, "reasoning_content");
      } else if (event.type === "tool-call-start") {
        firstTokenAt ??= startedAt;
        const index = toolIndexes.size;
        toolIndexes.set(event.id, index);
        chunks?.chunk({
          tool_calls: [
            {
              index,
              id: event.id,
              type: "function",
              function: { name: event.name, arguments: "" },
            },
          ],
        });
      } else if (event.type === "tool-call-delta") {
        const index = toolIndexes.get(event.id) ?? 0;
        chunks?.chunk({ tool_calls: [{ index, function: { arguments: event.argumentsDelta } }] });
      }
      // A client that cannot keep up is dropped rather than buffered for without bound.
      if (response.writableLength > context.config.sendBufferHardBytes) {
        context.metrics.countServerClose("slow_client");
        response.destroy();
      }
      clock.addSince(startedAt);
    }
  } catch (thrown) {
    outcome.finishReason = "error";
    outcome.error = SparkError.from(thrown);
  } finally {
    endRun();
    context.runs.delete(run);
    context.metrics.streamEnded();
    // Free in the store before the client reads the end: its next request may follow at once.
    await release();
  }

  startedAt = performance.now();
  const { text, toolCalls, usage, timings, finishReason, error } = outcome;
  const timeToFirstTokenMs =
    firstTokenAt === undefined ? null : Math.round((firstTokenAt - receivedAt) * 1000) / 1000;
  const chatUsage = toChatUsage(usage);
  context.metrics.observeResponse({
    transport: "http",
    status: statusOfFinish(finishReason),
    timeToFirstTokenMs,
    gatewayOverheadMs: clock.overheadMs,
    inputTokens: usage?.inputTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    decodeLoop: timings?.decodeLoop,
  });
  // The same line Responses writes: an operator reads model, tokens and time to first token.
  context.log.response({
    responseId: id,
    model: resolved.model,
    transport: "http",
    status: statusOfFinish(finishReason),
    inputTokens: usage?.inputTokens ?? 0,
    cachedInputTokens: usage?.cachedInputTokens ?? 0,
    outputTokens: usage?.outputTokens ?? 0,
    timeToFirstTokenMs,
    totalMs: performance.now() - receivedAt,
    reason: error?.message ?? (finishReason === "length" ? "max_tokens" : undefined),
    tenant,
    format: describeOutputFormat(engineRequest.outputFormat),
  });
  if (finishReason === "error") {
    const failure = clientFacingEngineError(
      error ?? new SparkError("internal_error", "The engine failed."),
    );
    context.metrics.countError(failure.code);
    logEngineError(context, failure);
    if (chunks === undefined) return sendError(response, failure);
    chunks.flushContent();
    const wire = describeWireError(failure);
    // The SDK turns a `data: {"error": …}` chunk into a thrown APIError.
    response.end(
      `data: ${JSON.stringify({ error: { message: wire.message, type: wire.type, param: wire.param, code: wire.code } })}\n\n`,
    );
    return;
  }
  if (controller.signal.aborted) return;
  clock.addSince(startedAt);
  const timingsExtension = sparkTimings(usage, timings, timeToFirstTokenMs, clock.overheadMs);
  const finish = toChatFinishReason(finishReason);
  if (chunks !== undefined) {
    chunks.chunk({}, finish);
    if (body.stream_options?.include_usage === true) {
      const usageChunk: ChatCompletionChunk = {
        id,
        object: "chat.completion.chunk",
        created,
        model: resolved.model,
        choices: [],
        usage: chatUsage,
        spark_timings: timingsExtension,
      };
      chunks.data(usageChunk);
    }
    response.end("data: [DONE]\n\n");
    return;
  }
  // As OpenAI does and as Responses returns it (status incomplete): output cut by the token limit
  // comes back as far as it got, a call with the arguments streamed so far, flagged by "length".
  const returnedCalls =
    finishReason === "length" ? [...toolCalls, ...outcome.unfinishedToolCalls] : toolCalls;
  const completion: ChatCompletion = {
    id,
    object: "chat.completion",
    created,
    model: resolved.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && returnedCalls.length > 0 ? null : text,
          ...(outcome.reasoning === "" ? {} : { reasoning_content: outcome.reasoning }),
          refusal: null,
          ...(returnedCalls.length === 0
            ? {}
            : {
                tool_calls: returnedCalls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }),
        },
        finish_reason: finish,
        logprobs: null,
      },
    ],
    usage: chatUsage,
    spark_timings: timingsExtension,
  };
  sendJson(response, 200, completion);
}

function toChatFinishReason(reason: FinishReason): ChatFinishReason {
  return reason === "length" ? "length" : reason === "tool_calls" ? "tool_calls" : "stop";
}

function toChatUsage(usage: Usage | undefined): ChatCompletionUsage {
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage?.cachedInputTokens ?? 0 },
  };
}
