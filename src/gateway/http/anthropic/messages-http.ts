// POST /v1/messages: Anthropic's Messages API as a front onto the turn machinery Responses uses
// (prepareTurn, executeTurn: routing, the key's concurrency slot, cancellation when the client
// hangs up, a drain's deadline, metrics and the request log), streamed as Anthropic's events or
// answered as one message. Nothing is stored: the API has no chaining.
import type { IncomingMessage, ServerResponse } from "node:http";
import { anthropicMessageCreateSchema } from "../../../protocol/anthropic-messages.ts";
import { estimateInputTokens } from "../../access/limits.ts";
import { GatewayClock } from "../../gateway-clock.ts";
import type { GatewayContext } from "../../gateway-context.ts";
import { prepareTurn, type PreparedTurn } from "../../turn/prepare-turn.ts";
import { dropSlot, executeTurn, startSlot } from "../../turn/turn-executor.ts";
import { schemaError } from "../../wire/schema-error.ts";
import { readJsonBody, sendJson } from "../http-io.ts";
import { sendAnthropicError } from "./anthropic-error.ts";
import { messageIdOf, toAnthropicMessage } from "./anthropic-message.ts";
import { sparkModelFor } from "./anthropic-model-name.ts";
import { toResponsesBody } from "./anthropic-request.ts";
import { AnthropicStreamWriter } from "./anthropic-stream-writer.ts";

export async function handleMessagesPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string | undefined,
): Promise<void> {
  const receivedAt = performance.now();
  const clock = new GatewayClock();
  const raw = await readJsonBody(request, context.config.maxFrameBytes, clock);
  let startedAt = performance.now();
  const parsed = anthropicMessageCreateSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  const mapped = toResponsesBody(parsed.data);
  clock.addSince(startedAt);
  mapped.body.model = await sparkModelFor(context.models, parsed.data.model);
  const slot = startSlot(context, apiKey);
  const controller = new AbortController();
  // A client that hangs up frees the engine, as on every HTTP path.
  response.on("close", () => {
    if (!response.writableFinished) controller.abort("disconnected");
  });
  let turn: PreparedTurn;
  try {
    turn = await prepareTurn(
      { body: mapped.body, apiKey, receivedAt, clock, signal: controller.signal },
      {
        models: context.models,
        store: context.store,
        contextLimitTokens: context.config.contextLimitTokens,
      },
    );
  } catch (error) {
    dropSlot(slot);
    throw error;
  }
  startedAt = performance.now();
  if (mapped.stopSequences.length > 0) {
    turn.engineRequest.sampling = { ...turn.engineRequest.sampling, stop: mapped.stopSequences };
  }
  const identity = {
    id: messageIdOf(turn.responseId),
    model: parsed.data.model,
    thinking: mapped.thinking,
  };
  const execution = {
    signal: controller.signal,
    clock,
    transport: "http" as const,
    slot,
    // Nothing chains from a message: the store is not written.
    mayStore: () => false,
  };
  clock.addSince(startedAt);

  if (parsed.data.stream !== true) {
    const result = await executeTurn(context, turn, { ...execution, emit: () => {} });
    if (result.error !== undefined) sendAnthropicError(response, result.error);
    else sendJson(response, 200, toAnthropicMessage(result.response, identity));
    return;
  }
  const writer = new AnthropicStreamWriter(response, {
    ...identity,
    estimatedInputTokens: estimateInputTokens(
      turn.engineRequest.messages,
      turn.engineRequest.tools,
    ),
    hardBytes: context.config.sendBufferHardBytes,
    onDrop: () => {
      context.metrics.countServerClose("slow_client");
      controller.abort("disconnected");
    },
  });
  // The concurrency check throws before the first event, so it is still an HTTP 429.
  try {
    const result = await executeTurn(context, turn, {
      ...execution,
      emit: (event) => writer.accept(event),
    });
    if (result.error !== undefined) writer.fail(result.error);
  } finally {
    writer.close();
  }
}
