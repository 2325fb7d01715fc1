// What an upstream socket already holds of a conversation (its last response and every input item
// that response continued from, plus its output), and the plan for the next `response.create`:
// `previous_response_id` with only the new items when the request extends that chain exactly.

/** One Responses input item, as build-responses-request-body.ts writes it. */
export type InputItem = Record<string, unknown>;

export interface ResponseChain {
  responseId: string;
  /** The JSON of every item the upstream holds for `responseId`, in order: input then output. */
  items: string[];
  /** Only a request of the same scope (the gateway's tenant) may continue the chain. */
  cacheScope: string | undefined;
  /** A warm-up (`generate: false`): the upstream holds the conversation and has not answered it. */
  prefilled: boolean;
}

export interface CreatePlan {
  previousResponseId: string | undefined;
  /** All items when no chain applies; otherwise only those after the chain's. */
  input: InputItem[];
}

/** The output of one response, as the agent sends it back next turn. */
export interface ResponseOutput {
  text: string;
  calls: Array<{ callId: string; name: string; arguments: string }>;
}

export function planCreate(
  chain: ResponseChain | undefined,
  input: InputItem[],
  cacheScope: string | undefined,
): CreatePlan {
  const full = { previousResponseId: undefined, input };
  if (chain === undefined || chain.cacheScope !== cacheScope) return full;
  // Nothing new after a warm-up: generate from it (empty input). Nothing new after an answer is a
  // retry of that turn, which must not continue after the answer: sent whole.
  const shortest = chain.prefilled ? chain.items.length : chain.items.length + 1;
  if (input.length < shortest) return full;
  for (let index = 0; index < chain.items.length; index += 1) {
    if (JSON.stringify(input[index]) !== chain.items[index]) return full;
  }
  return { previousResponseId: chain.responseId, input: input.slice(chain.items.length) };
}

/**
 * The chain after a response finished: everything it was given (the full conversation, whether
 * it was sent whole or continued) followed by its output in input-item form. A later request
 * matches only if it repeats that output exactly, so output cut client-side (a stop string) or
 * edited by the caller makes the next request go whole, which is always correct.
 */
export function chainAfter(
  responseId: string,
  input: InputItem[],
  output: ResponseOutput,
  cacheScope: string | undefined,
  prefilled: boolean,
): ResponseChain {
  const outputItems: InputItem[] =
    output.text === "" ? [] : [{ role: "assistant", content: output.text }];
  for (const call of output.calls) {
    outputItems.push({
      type: "function_call",
      call_id: call.callId,
      name: call.name,
      arguments: call.arguments,
    });
  }
  return {
    responseId,
    items: [...input, ...outputItems].map((item) => JSON.stringify(item)),
    cacheScope,
    prefilled,
  };
}
