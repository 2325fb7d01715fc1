// The tool path: node-llama-cpp's LlamaChat constrains function calls with a grammar built from
// each tool's JSON schema, so the call it emits always parses.
import { nodeLlamaCppFilters } from "./node-llama-cpp-sampling.ts";
import {
  LlamaChat,
  type ChatHistoryItem,
  type ChatModelFunctions,
  type ChatWrapper,
} from "node-llama-cpp";
import type { EngineEvent, FinishReason, ToolDefinition } from "../engine.ts";
import { AsyncEventQueue } from "./async-event-queue.ts";
import type { GenerationInput } from "./generate-text.ts";
import type { GenerationResult } from "./generation-result.ts";

export interface GenerateWithToolsInput extends GenerationInput {
  chatWrapper: ChatWrapper;
  history: ChatHistoryItem[];
  tools: readonly ToolDefinition[];
  newToolCallId: () => string;
}

export function toChatModelFunctions(tools: readonly ToolDefinition[]): ChatModelFunctions {
  return Object.fromEntries(
    tools.map((tool) => [
      tool.name,
      {
        ...(tool.description === undefined ? {} : { description: tool.description }),
        // node-llama-cpp builds its grammar from this JSON schema (the GBNF-supported subset).
        params: tool.parameters as never,
      },
    ]),
  );
}

export async function* generateWithTools(
  input: GenerateWithToolsInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  // LlamaChat aligns the sequence itself; count what it will find cached the same way.
  result.cachedInputTokens = Math.min(
    input.sequence.compareContextTokens(input.promptTokens).firstDifferentIndex,
    input.promptTokens.length - 1,
  );
  const queue = new AsyncEventQueue<EngineEvent>();
  const chat = new LlamaChat({
    contextSequence: input.sequence,
    chatWrapper: input.chatWrapper,
    autoDisposeSequence: false,
  });
  const callIds = new Map<number, { id: string; name: string; argumentsText: string }>();
  const outputBefore = input.sequence.tokenMeter.usedOutputTokens;
  const { sampling } = input;

  const generation = chat
    .generateResponse(input.history, {
      functions: toChatModelFunctions(input.tools),
      maxTokens: input.maxOutputTokens,
      temperature: sampling.temperature ?? 0.7,
      ...nodeLlamaCppFilters(sampling),
      ...(sampling.seed === undefined ? {} : { seed: sampling.seed }),
      ...(sampling.stop === undefined ? {} : { customStopTriggers: sampling.stop }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
      stopOnAbortSignal: true,
      onTextChunk: (text) => {
        input.clock.markToken(0);
        queue.push({ type: "text-delta", text });
      },
      onFunctionCallParamsChunk: (chunk) => {
        input.clock.markToken(0);
        let call = callIds.get(chunk.callIndex);
        if (call === undefined) {
          call = { id: input.newToolCallId(), name: chunk.functionName, argumentsText: "" };
          callIds.set(chunk.callIndex, call);
          queue.push({ type: "tool-call-start", id: call.id, name: call.name });
        }
        if (chunk.paramsChunk !== "") {
          call.argumentsText += chunk.paramsChunk;
          queue.push({ type: "tool-call-delta", id: call.id, argumentsDelta: chunk.paramsChunk });
        }
      },
    })
    .then(
      (response) => {
        const calls = response.functionCalls ?? [];
        calls.forEach((functionCall, index) => {
          const known = callIds.get(index);
          const id = known?.id ?? input.newToolCallId();
          if (known === undefined)
            queue.push({ type: "tool-call-start", id, name: functionCall.functionName });
          const argumentsText = JSON.stringify(functionCall.params ?? {});
          queue.push({
            type: "tool-call-end",
            id,
            name: functionCall.functionName,
            arguments: argumentsText,
          });
        });
        result.finishReason = mapStopReason(response.metadata.stopReason, calls.length);
        queue.close();
      },
      (error: unknown) => queue.fail(error),
    )
    .finally(() => chat.dispose({ disposeSequence: false }));

  try {
    yield* queue;
  } finally {
    await generation.catch(() => undefined);
    result.outputTokens = input.sequence.tokenMeter.usedOutputTokens - outputBefore;
  }
}

function mapStopReason(stopReason: string, callCount: number): FinishReason {
  if (callCount > 0 || stopReason === "functionCalls") return "tool_calls";
  if (stopReason === "maxTokens") return "length";
  if (stopReason === "abort") return "cancelled";
  return "stop";
}
