// One EngineRequest to one Chat Completions request body, asking only for what the upstream accepts.
import type { EngineRequest, OutputFormat } from "../engine.ts";
import type {
  ChatCompletionsRequestBody,
  ChatCompletionsResponseFormat,
} from "./chat-completions-wire.ts";
import { convertToChatMessages } from "./convert-to-chat-messages.ts";
import type { ResolvedOpenAICompatibleOptions } from "./openai-compatible-options.ts";

export type RequestBodyCapabilities = Pick<
  ResolvedOpenAICompatibleOptions,
  "supportsPrediction" | "supportsStreamUsage" | "maxTokensField"
> & { model: string };

export function buildChatRequestBody(
  request: EngineRequest,
  capabilities: RequestBodyCapabilities,
): ChatCompletionsRequestBody {
  const body: ChatCompletionsRequestBody = {
    model: capabilities.model,
    messages: convertToChatMessages(request.messages),
    stream: true,
  };
  if (capabilities.supportsStreamUsage) body.stream_options = { include_usage: true };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
      },
    }));
    const choice = request.toolChoice;
    if (choice !== undefined) {
      body.tool_choice =
        typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
    }
  }
  const sampling = request.sampling ?? {};
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  // top_k and min_p are not OpenAI's: sent only when the client asked (vLLM, SGLang, llama-server
  // and Ollama's OpenAI endpoint read them; OpenAI answers 400, which reaches the client as it is).
  if (sampling.topK !== undefined) body.top_k = sampling.topK;
  if (sampling.minP !== undefined) body.min_p = sampling.minP;
  if (sampling.presencePenalty !== undefined) body.presence_penalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) body.frequency_penalty = sampling.frequencyPenalty;
  if (sampling.maxOutputTokens !== undefined)
    body[capabilities.maxTokensField] = sampling.maxOutputTokens;
  if (sampling.stop !== undefined && sampling.stop.length > 0) body.stop = sampling.stop;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (
    request.prediction !== undefined &&
    request.prediction !== "" &&
    capabilities.supportsPrediction
  ) {
    body.prediction = { type: "content", content: request.prediction };
  }
  if (request.outputFormat !== undefined)
    body.response_format = chatResponseFormat(request.outputFormat);
  return body;
}

/** The upstream enforces the format itself: it is passed on in Chat Completions' shape. */
function chatResponseFormat(format: OutputFormat): ChatCompletionsResponseFormat {
  if (format.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(format.strict === undefined ? {} : { strict: format.strict }),
      ...(format.description === undefined ? {} : { description: format.description }),
    },
  };
}
