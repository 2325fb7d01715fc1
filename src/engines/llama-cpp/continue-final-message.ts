// Continuing the assistant's partial answer (`continueFinalMessage`, a gateway replica taking over a
// response whose replica died): the chat is rendered with that answer as the open last turn, no
// end-of-turn after it, and generation goes on from its last token on either decode loop. Only
// plain text is continued; what would need more than a prompt (a grammar's state, a tool-call
// parser's state) is refused with `continuation_unsupported`, and the gateway re-runs the request.
import type { ChatHistoryItem } from "node-llama-cpp";
import type { EngineRequest, ToolDefinition } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { toChatHistory } from "./chat-history.ts";

/** Why this request's partial answer cannot be continued here; undefined when it can (or is none). */
export function refuseUncontinuable(
  request: EngineRequest,
  tools: readonly ToolDefinition[],
): SparkError | undefined {
  if (request.continueFinalMessage !== true) return undefined;
  const refuse = (why: string): SparkError =>
    new SparkError(
      "continuation_unsupported",
      `The llama-cpp engine continues a partial plain-text answer only; ${why}.`,
    );
  if (request.completion !== undefined) return refuse("this is a raw completion");
  if (request.outputFormat !== undefined)
    return refuse("structured output would need its grammar advanced through the answer so far");
  if (tools.length > 0)
    return refuse("a request with tools would need its tool-call parser's state at the cut");
  const last = request.messages.at(-1);
  if (last?.role !== "assistant") return refuse("the request does not end with the assistant");
  if ((last.toolCalls ?? []).length > 0) return refuse("the answer so far holds tool calls");
  return undefined;
}

/**
 * The history the chat wrapper renders: the conversation, then the assistant turn to generate,
 * empty or (continuing) holding the answer so far. node-llama-cpp's wrappers leave the last model
 * item open (it is how LlamaChat continues a response), so the answer so far is rendered without an
 * end-of-turn, and the prompt is the one the answer started from plus the answer's text.
 */
export function historyToRender(request: EngineRequest): ChatHistoryItem[] {
  const last = request.messages.at(-1);
  if (request.continueFinalMessage === true && last?.role === "assistant") {
    const answer = last.content === "" ? [] : [last.content];
    return [...toChatHistory(request.messages.slice(0, -1)), { type: "model", response: answer }];
  }
  return [...toChatHistory(request.messages), { type: "model", response: [] }];
}
