// Which loop's pool a request's sequence comes from: the native loop's, or node-llama-cpp's when
// the request runs on that loop.
import type { ToolDefinition } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import type { EnginePools } from "./acquire-engine-lease.ts";
import type { ChatFormatPrompt } from "./chat-format/chat-format-prompt.ts";
import type { NativeContext } from "./native-loop/native-context.ts";
import type { NodeLlamaCppContext } from "./open-engine-parts.ts";
import type { ToolCallSyntax } from "./tool-calls/tool-call-syntax.ts";

/** The engine's loops, and the tool-call syntax the native loop speaks, if any. */
export interface EngineLoops {
  native: NativeContext | undefined;
  nodeLlamaCpp: NodeLlamaCppContext | undefined;
  toolSyntax: ToolCallSyntax | undefined;
}

/**
 * Plain text, with or without prompt lookup, runs on the native loop when there is one; so do
 * tool turns when the model's tool-call syntax is one the native loop speaks (<tool_call> JSON);
 * other syntaxes decode inside node-llama-cpp's LlamaChat.
 */
function nativeLoopFor(
  loops: EngineLoops,
  tools: readonly ToolDefinition[],
  chat: ChatFormatPrompt | undefined,
): NativeContext | undefined {
  if (chat !== undefined) return loops.native;
  return tools.length > 0 && loops.toolSyntax === undefined ? undefined : loops.native;
}

export function requestPools(
  loops: EngineLoops,
  tools: readonly ToolDefinition[],
  chat: ChatFormatPrompt | undefined,
): EnginePools {
  return {
    native: nativeLoopFor(loops, tools, chat)?.pool,
    // Created whenever a request can need it (openEngineContexts): its absence is a bug.
    nodeLlamaCpp: () => {
      if (loops.nodeLlamaCpp === undefined) {
        throw new SparkError("internal_error", "node-llama-cpp's context was not created.");
      }
      return loops.nodeLlamaCpp.pool;
    },
  };
}
