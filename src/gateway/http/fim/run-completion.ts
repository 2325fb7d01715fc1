// One fill-in-the-middle completion through the gateway, shared by /v1/completions and /infill:
// the document's cache key and its cancel-on-next-request, the engine stream, and the truncation
// rules applied to the text as it streams.
import type { ServerResponse } from "node:http";
import { applyStreamEvent, emptyStreamOutcome } from "../../../engines/collect-stream.ts";
import type {
  CompletionPrompt,
  FinishReason,
  SamplingOptions,
  Timings,
  Usage,
} from "../../../engines/engine.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import { clientFacingEngineError, logEngineError } from "../../wire/engine-error.ts";
import { GatewayClock } from "../../gateway-clock.ts";
import type { GatewayContext } from "../../gateway-context.ts";
import { statusOfFinish } from "../../metrics.ts";
import { resolveModelOrThrow } from "../../gateway-models.ts";
import { tenantOf, tenantSessionKey } from "../../access/tenant.ts";
import { CompletionTruncator, type TruncationReason } from "./completion-truncator.ts";

export interface FimCall {
  model: string | undefined;
  completion: CompletionPrompt;
  sampling: SamplingOptions;
  /** The client's name for the document (prompt_cache_key, else the filename). */
  documentKey: string | undefined;
  maxPredictMs: number | undefined;
}

export interface FimOutcome {
  model: string;
  text: string;
  /** "cancelled": a newer request for the same document (or a disconnect) replaced it. */
  finishReason: FinishReason;
  truncatedBy: TruncationReason | undefined;
  usage: Usage | undefined;
  timings: Timings | undefined;
  error: SparkError | undefined;
  timeToFirstTokenMs: number | null;
  gatewayOverheadMs: number;
}

/**
 * Runs the completion, calling `onText` for each piece a client may show. Throws (before any
 * output) only for a request the gateway refuses itself: an unknown model, too many requests.
 */
export async function runFimCompletion(
  context: GatewayContext,
  call: FimCall,
  apiKey: string | undefined,
  response: ServerResponse,
  onText: (text: string, model: string) => void,
): Promise<FimOutcome> {
  const receivedAt = performance.now();
  const clock = new GatewayClock();
  let startedAt = receivedAt;
  const tenant = tenantOf(apiKey);
  const request = {
    messages: [],
    completion: call.completion,
    sampling: call.sampling,
    cacheScope: tenant,
    ...(call.documentKey === undefined
      ? {}
      : { sessionKey: tenantSessionKey(tenant, `fim:${call.documentKey}`) }),
  };
  const resolved = await resolveModelOrThrow(context.models, call.model, request);
  const engineRequest = { ...request, model: resolved.model };
  clock.addSince(startedAt);

  const release = await context.limiter.acquire(apiKey);
  const controller = new AbortController();
  const documentKey = engineRequest.sessionKey;
  if (documentKey !== undefined) context.documents.begin(documentKey, controller);
  response.on("close", () => {
    if (!response.writableFinished) controller.abort("disconnected");
  });
  const truncator = new CompletionTruncator({
    prefix: call.completion.prefix,
    suffix: call.completion.suffix ?? "",
    lineRules: call.completion.suffix !== undefined,
    ...(call.maxPredictMs === undefined ? {} : { maxPredictMs: call.maxPredictMs }),
  });
  const outcome = emptyStreamOutcome();
  let text = "";
  let firstTokenAt: number | undefined;
  const emit = (piece: string): void => {
    if (piece === "") return;
    text += piece;
    onText(piece, resolved.model);
  };
  context.metrics.streamStarted();
  let endRun: () => void = () => {};
  context.runs.add(new Promise<void>((resolve) => (endRun = resolve)));
  try {
    for await (const event of resolved.engine.stream(engineRequest, {
      signal: controller.signal,
    })) {
      startedAt = performance.now();
      applyStreamEvent(outcome, event);
      // After a truncation the engine is stopping; what it still sends is dropped.
      if (event.type === "text-delta" && truncator.stopReason === undefined) {
        firstTokenAt ??= startedAt;
        const step = truncator.push(event.text, startedAt - firstTokenAt);
        emit(step.text);
        if (step.stopped !== undefined) controller.abort("truncated");
      }
      clock.addSince(startedAt);
    }
    if (truncator.stopReason === undefined) emit(truncator.flush());
  } catch (thrown) {
    outcome.finishReason = "error";
    outcome.error = SparkError.from(thrown);
  } finally {
    endRun();
    if (documentKey !== undefined) context.documents.end(documentKey, controller);
    context.metrics.streamEnded();
    // Free in the store before the client reads the end: its next request may follow at once.
    await release();
  }

  const truncatedBy = truncator.stopReason;
  let finishReason = outcome.finishReason;
  if (truncatedBy !== undefined && finishReason !== "error")
    finishReason = truncatedBy === "time_budget" ? "length" : "stop";
  const timeToFirstTokenMs =
    firstTokenAt === undefined ? null : Math.round((firstTokenAt - receivedAt) * 1000) / 1000;
  let error = outcome.error;
  if (finishReason === "error") {
    error = clientFacingEngineError(
      error ?? new SparkError("internal_error", "The engine failed."),
    );
    context.metrics.countError(error.code);
    logEngineError(context, error);
  }
  context.metrics.observeResponse({
    transport: "http",
    status: statusOfFinish(finishReason),
    timeToFirstTokenMs,
    gatewayOverheadMs: clock.overheadMs,
    inputTokens: outcome.usage?.inputTokens ?? 0,
    cachedInputTokens: outcome.usage?.cachedInputTokens ?? 0,
    outputTokens: outcome.usage?.outputTokens ?? 0,
    decodeLoop: outcome.timings?.decodeLoop,
  });
  return {
    model: resolved.model,
    text,
    finishReason,
    truncatedBy,
    usage: outcome.usage,
    timings: outcome.timings,
    error,
    timeToFirstTokenMs,
    gatewayOverheadMs: clock.overheadMs,
  };
}
