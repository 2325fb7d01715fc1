// POST /v1/completions: OpenAI's legacy completions (prompt + suffix), streamed as `data:`
// text_completion chunks ending in [DONE], or answered as one text_completion with usage.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FinishReason, Usage } from "../../../engines/engine.ts";
import {
  completionRequestSchema,
  type CompletionFinishReason,
  type CompletionUsage,
  type TextCompletion,
} from "../../../protocol/completions.ts";
import type { GatewayContext } from "../../gateway-context.ts";
import { readJsonBody, sendError, sendJson } from "../http-io.ts";
import { newId } from "../../wire/new-id.ts";
import { schemaError } from "../../wire/schema-error.ts";
import { sparkTimings } from "../../turn/spark-timings.ts";
import { startEventStream } from "../sse-transport.ts";
import { describeWireError } from "../../wire/wire-error.ts";
import { completionSampling } from "./completion-sampling.ts";
import { runFimCompletion } from "./run-completion.ts";

// OpenAI's documented default for this endpoint.
const DEFAULT_MAX_TOKENS = 16;

export async function handleCompletionsPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string | undefined,
): Promise<void> {
  const raw = await readJsonBody(request, context.config.maxFrameBytes);
  const parsed = completionRequestSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  const body = parsed.data;
  const prompt = typeof body.prompt === "string" ? body.prompt : (body.prompt[0] ?? "");
  const id = newId("cmpl-");
  const created = Math.floor(Date.now() / 1000);
  const stream = body.stream === true;
  const chunk = (model: string, text: string, finish: CompletionFinishReason | null): string => {
    const payload: TextCompletion = {
      id,
      object: "text_completion",
      created,
      model,
      choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
    };
    return `data: ${JSON.stringify(payload)}\n\n`;
  };
  // The event stream starts with the first text, so an error before any output still gets its
  // HTTP status (the SDK throws the matching APIError).
  const onText = (text: string, model: string): void => {
    if (!stream) return;
    if (!response.headersSent) startEventStream(response);
    response.write(chunk(model, text, null));
  };
  const outcome = await runFimCompletion(
    context,
    {
      model: body.model,
      completion: {
        prefix: prompt,
        ...(body.suffix == null ? {} : { suffix: body.suffix }),
        ...(body.input_extra === undefined ? {} : { extra: body.input_extra }),
        ...(body.filename === undefined ? {} : { filename: body.filename }),
      },
      sampling: completionSampling(body, body.max_tokens ?? DEFAULT_MAX_TOKENS),
      documentKey: body.prompt_cache_key ?? body.filename,
      maxPredictMs: body.t_max_predict_ms,
    },
    apiKey,
    response,
    onText,
  );
  const model = outcome.model;
  if (outcome.error !== undefined) {
    if (!response.headersSent) return sendError(response, outcome.error);
    const wire = describeWireError(outcome.error);
    response.end(
      `data: ${JSON.stringify({ error: { message: wire.message, type: wire.type, param: wire.param, code: wire.code } })}\n\n`,
    );
    return;
  }
  if (response.destroyed) return;
  const usage = toCompletionUsage(outcome.usage);
  const timings = sparkTimings(
    outcome.usage,
    outcome.timings,
    outcome.timeToFirstTokenMs,
    outcome.gatewayOverheadMs,
  );
  const finish = toCompletionFinishReason(outcome.finishReason);
  if (stream) {
    if (!response.headersSent) startEventStream(response);
    response.write(chunk(model, "", finish));
    if (body.stream_options?.include_usage === true) {
      const usageChunk: TextCompletion = {
        id,
        object: "text_completion",
        created,
        model,
        choices: [],
        usage,
        spark_timings: timings,
      };
      response.write(`data: ${JSON.stringify(usageChunk)}\n\n`);
    }
    response.end("data: [DONE]\n\n");
    return;
  }
  const completion: TextCompletion = {
    id,
    object: "text_completion",
    created,
    model,
    choices: [{ text: outcome.text, index: 0, logprobs: null, finish_reason: finish }],
    usage,
    spark_timings: timings,
  };
  sendJson(response, 200, completion);
}

function toCompletionFinishReason(reason: FinishReason): CompletionFinishReason {
  return reason === "length" ? "length" : reason === "cancelled" ? "cancelled" : "stop";
}

export function toCompletionUsage(usage: Usage | undefined): CompletionUsage {
  const prompt = usage?.inputTokens ?? 0;
  const completion = usage?.outputTokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: usage?.cachedInputTokens ?? 0 },
  };
}
