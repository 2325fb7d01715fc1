// Streams one grammar-sampled tool call as events, on either decode loop: its start once the name
// is sampled, its arguments as they grow, its end once the grammar completed the object. A call
// cut short (max tokens, abort) has a start and deltas but no end, so every API can show the
// output as far as it got, flagged as cut, and nothing runs it.
import type { Token } from "node-llama-cpp";
import type { EngineEvent } from "../../engine.ts";
import type { EmitInput } from "../emit-text-tokens.ts";
import type { GenerationResult } from "../generation-result.ts";
import { TextStreamDecoder } from "../text-stream-decoder.ts";
import { ToolCallText } from "./tool-call-text.ts";

export interface StreamToolCallInput extends EmitInput {
  newToolCallId: () => string;
}

/** Returns whether the call was complete (not cut short by max tokens or the abort). */
export async function* streamToolCall(
  tokens: AsyncGenerator<Token, void, undefined>,
  input: StreamToolCallInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent, boolean> {
  const decoder = new TextStreamDecoder(input.model, []);
  const text = new ToolCallText();
  let id: string | undefined;
  const send = function* (piece: string): Generator<EngineEvent> {
    const step = text.push(piece);
    if (step.name !== undefined) {
      id = input.newToolCallId();
      yield { type: "tool-call-start", id, name: step.name };
    }
    if (id !== undefined && step.argumentsDelta !== "") {
      yield { type: "tool-call-delta", id, argumentsDelta: step.argumentsDelta };
    }
  };
  try {
    for await (const token of tokens) {
      result.outputTokens += 1;
      input.clock.markToken();
      if (input.signal?.aborted === true) return false;
      yield* send(decoder.push(token).text);
      // node-llama-cpp's loop has no token limit of its own; the native loop's job stops itself.
      if (result.outputTokens >= input.maxOutputTokens) break;
    }
  } finally {
    await tokens.return(undefined);
  }
  yield* send(decoder.flush());
  let call;
  try {
    call = text.complete();
  } catch {
    // The job ended before the grammar completed the object.
    return false;
  }
  if (id === undefined) {
    id = input.newToolCallId();
    yield { type: "tool-call-start", id, name: call.name };
  }
  if (call.argumentsRest !== "") {
    yield { type: "tool-call-delta", id, argumentsDelta: call.argumentsRest };
  }
  yield { type: "tool-call-end", id, name: call.name, arguments: call.argumentsText };
  return true;
}
