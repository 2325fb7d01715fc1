// Compile-time proof that Spark's wire shapes are the openai SDK's: each Spark event or object
// must be assignable to the SDK type. Allowed differences, all additive: the SDK computes
// `output_text` on the client, and Spark adds incomplete reasons (cancelled, steered, disconnected).
import type {
  ChatCompletion as SdkChatCompletion,
  ChatCompletionChunk as SdkChatCompletionChunk,
} from "openai/resources/chat/completions";
import type {
  Response as SdkResponse,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import type { ChatCompletion, ChatCompletionChunk } from "../../src/protocol/chat-completions.ts";
import type {
  ResponseLifecycleEvent,
  ResponseObject,
  ResponseServerEvent,
} from "../../src/protocol/responses-events.ts";

function asSdkResponse(response: ResponseObject): Omit<SdkResponse, "output_text"> {
  return { ...response, incomplete_details: null };
}

function asSdkEvent(
  event: Exclude<ResponseServerEvent, ResponseLifecycleEvent>,
): ResponseStreamEvent {
  return event;
}

function asSdkChat(
  completion: ChatCompletion,
  chunk: ChatCompletionChunk,
): [SdkChatCompletion, SdkChatCompletionChunk] {
  return [completion, chunk];
}

describe("wire types", () => {
  it("are assignable to the openai SDK types (checked by tsc)", () => {
    expect(
      [asSdkResponse, asSdkEvent, asSdkChat].every((check) => typeof check === "function"),
    ).toBe(true);
  });
});
