// Which grammar a request's text answer follows on the embedded engine, and the refusals: a
// schema the grammar cannot enforce, or a format with optional tool calls on node-llama-cpp's
// loop, whose LlamaChat takes no grammar beside its functions.
import type { LlamaGrammar } from "node-llama-cpp";
import type { EngineRequest, ToolDefinition } from "../../engine.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import type { GrammarCache } from "../grammar-cache.ts";
import type { DecodeLoop } from "../native-loop/open-native-loop.ts";

/**
 * undefined for free text, and for a forced tool call (a call is the whole answer: no text to
 * constrain). Rejects with invalid_request where the format cannot be kept, and with cancelled
 * when `signal` aborts while the grammar is built.
 */
export async function outputTextGrammar(
  request: EngineRequest,
  tools: readonly ToolDefinition[],
  grammars: GrammarCache,
  toolDecodeLoop: DecodeLoop,
  signal?: AbortSignal,
): Promise<LlamaGrammar | undefined> {
  const format = request.outputFormat;
  if (format === undefined) return undefined;
  const choice = request.toolChoice ?? "auto";
  if (tools.length > 0 && choice !== "auto") return undefined;
  if (tools.length > 0 && toolDecodeLoop !== "native") {
    throw new SparkError(
      "invalid_request",
      "Structured output together with tools the model may call (tool_choice auto) needs the " +
        "native decode loop and a model that writes <tool_call> JSON; this model's tool turns " +
        "run on node-llama-cpp's loop. Send tool_choice none or required, or no text.format / " +
        "response_format.",
    );
  }
  return grammars.outputFormatGrammar(format, signal);
}
