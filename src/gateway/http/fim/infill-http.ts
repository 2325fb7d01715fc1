// POST /infill in llama.cpp server's shape, so editor plugins written for llama-server (llama.vim,
// llama.vscode) can point at Spark: `input_prefix`/`input_suffix`/`input_extra` in, `content`
// pieces out (`data: {...}` lines when streamed, the last with `stop: true` and `timings`).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Timings, Usage } from "../../../engines/engine.ts";
import {
  infillRequestSchema,
  type InfillResponse,
  type InfillTimings,
} from "../../../protocol/completions.ts";
import type { GatewayContext } from "../../gateway-context.ts";
import { readJsonBody, sendError, sendJson } from "../http-io.ts";
import { schemaError } from "../../wire/schema-error.ts";
import { startEventStream } from "../sse-transport.ts";
import { describeWireError } from "../../wire/wire-error.ts";
import { completionSampling } from "./completion-sampling.ts";
import { runFimCompletion, type FimOutcome } from "./run-completion.ts";

// llama-server's n_predict default is unbounded; an editor wants a short answer.
const DEFAULT_N_PREDICT = 128;

export async function handleInfillPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string | undefined,
): Promise<void> {
  const raw = await readJsonBody(request, context.config.maxFrameBytes);
  const parsed = infillRequestSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  const body = parsed.data;
  const stream = body.stream === true;
  const onText = (content: string, model: string): void => {
    if (!stream) return;
    if (!response.headersSent) startEventStream(response);
    const piece: InfillResponse = { content, stop: false, model };
    response.write(`data: ${JSON.stringify(piece)}\n\n`);
  };
  const nPredict = body.n_predict ?? undefined;
  const outcome = await runFimCompletion(
    context,
    {
      model: body.model,
      completion: {
        prefix: body.input_prefix,
        suffix: body.input_suffix,
        ...(body.input_extra === undefined ? {} : { extra: body.input_extra }),
        ...(body.filename === undefined ? {} : { filename: body.filename }),
        ...(body.prompt === undefined ? {} : { middle: body.prompt }),
      },
      // llama-server reads a negative n_predict as "no limit": the context's room then.
      sampling: completionSampling(
        body,
        nPredict !== undefined && nPredict < 0 ? undefined : (nPredict ?? DEFAULT_N_PREDICT),
      ),
      documentKey: body.prompt_cache_key ?? body.filename,
      maxPredictMs: body.t_max_predict_ms,
    },
    apiKey,
    response,
    onText,
  );
  if (outcome.error !== undefined) {
    if (!response.headersSent) return sendError(response, outcome.error);
    const wire = describeWireError(outcome.error);
    response.end(
      `data: ${JSON.stringify({ error: { code: wire.status, message: wire.message, type: wire.type } })}\n\n`,
    );
    return;
  }
  if (response.destroyed) return;
  const final: InfillResponse = {
    content: stream ? "" : outcome.text,
    stop: true,
    model: outcome.model,
    tokens_predicted: outcome.usage?.outputTokens ?? 0,
    tokens_evaluated: outcome.usage?.inputTokens ?? 0,
    tokens_cached: outcome.usage?.cachedInputTokens ?? 0,
    stop_type: stopType(outcome),
    stopping_word: "",
    truncated: false,
    timings: infillTimings(outcome.usage, outcome.timings),
  };
  if (!stream) return sendJson(response, 200, final);
  if (!response.headersSent) startEventStream(response);
  response.end(`data: ${JSON.stringify(final)}\n\n`);
}

function stopType(outcome: FimOutcome): InfillResponse["stop_type"] {
  if (outcome.finishReason === "cancelled") return "none";
  if (outcome.finishReason === "length") return "limit";
  return outcome.truncatedBy === undefined ? "eos" : "word";
}

function infillTimings(usage: Usage | undefined, timings: Timings | undefined): InfillTimings {
  const cached = usage?.cachedInputTokens ?? 0;
  const promptTokens = (usage?.inputTokens ?? 0) - cached;
  const predicted = usage?.outputTokens ?? 0;
  const promptMs = timings?.prefillMs ?? 0;
  const predictedMs = timings?.decodeMs ?? 0;
  const perSecond = (tokens: number, milliseconds: number): number | null =>
    milliseconds > 0 ? (tokens * 1000) / milliseconds : null;
  return {
    cache_n: cached,
    prompt_n: promptTokens,
    prompt_ms: promptMs,
    prompt_per_second: perSecond(promptTokens, promptMs),
    predicted_n: predicted,
    predicted_ms: predictedMs,
    predicted_per_second: perSecond(predicted, predictedMs),
  };
}
