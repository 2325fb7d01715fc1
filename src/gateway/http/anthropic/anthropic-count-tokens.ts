// POST /v1/messages/count_tokens: the input's size as Spark's context limit counts it (about four
// characters a token: the Engine interface exposes no tokenizer), after the same mapping and
// checks a create request gets, so a request refused here would be refused there too.
import type { IncomingMessage, ServerResponse } from "node:http";
import { anthropicCountTokensSchema } from "../../../protocol/anthropic-messages.ts";
import type { ChatMessage } from "../../../engines/engine.ts";
import { estimateInputTokens } from "../../access/limits.ts";
import type { GatewayContext } from "../../gateway-context.ts";
import { inputToMessages } from "../../turn/conversation.ts";
import { requestTools } from "../../turn/request-tools.ts";
import { schemaError } from "../../wire/schema-error.ts";
import { readJsonBody, sendJson } from "../http-io.ts";
import { toConversation } from "./anthropic-request.ts";
import { requireServedModel } from "./anthropic-model-name.ts";

export async function handleCountTokensPost(
  context: GatewayContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const raw = await readJsonBody(request, context.config.maxFrameBytes);
  const parsed = anthropicCountTokensSchema.safeParse(raw);
  if (!parsed.success) throw schemaError(parsed.error, "The request body");
  const body = toConversation(parsed.data);
  await requireServedModel(context.models, parsed.data.model);
  const history = inputToMessages(body.input);
  const messages: ChatMessage[] =
    body.instructions == null
      ? history
      : [{ role: "system", content: body.instructions }, ...history];
  const tools = body.tool_choice === "none" ? [] : requestTools(body.tools).definitions;
  sendJson(response, 200, { input_tokens: estimateInputTokens(messages, tools) });
}
