// A request's tokens on the decode loop its lease holds, once the engine has settled everything
// before them (prompt, room, output grammar, prompt lookup): the native loop (text, tool turns,
// structured output beside tools) or node-llama-cpp's (text, a forced call, tool turns).
import { randomUUID } from "node:crypto";
import type { ChatWrapper, LlamaGrammar, Token } from "node-llama-cpp";
import type { EngineEvent, EngineRequest, ToolDefinition, Usage } from "../engine.ts";
import { toChatHistory } from "./chat-history.ts";
import type { EngineLease } from "./acquire-engine-lease.ts";
import { generateText, type GenerationInput } from "./generate-text.ts";
import type { GenerationResult } from "./generation-result.ts";
import { generateForcedToolCall } from "./generate-forced-tool-call.ts";
import { generateWithTools } from "./generate-with-tools.ts";
import type { GrammarCache } from "./grammar-cache.ts";
import type { ChatFormatPrompt } from "./chat-format/chat-format-prompt.ts";
import { generateNativeChat } from "./native-loop/generate-native-chat.ts";
import { generateNativeText } from "./native-loop/generate-native-text.ts";
import { generateNativeStructuredWithTools } from "./native-loop/generate-native-structured.ts";
import { generateNativeWithTools } from "./native-loop/generate-native-tools.ts";
import type { RequestLookup, RequestLookups } from "./prompt-lookup/request-lookup.ts";
import type { ToolCallSyntax } from "./tool-calls/tool-call-syntax.ts";

/** The limits every path gets (GenerationInput without the sequence, which the lease holds). */
export type GenerationLimits = Omit<GenerationInput, "sequence" | "lookup" | "grammar">;

export interface LeaseGeneration {
  lease: EngineLease;
  request: EngineRequest;
  tools: ToolDefinition[];
  limits: GenerationLimits;
  /** Structured output's grammar (response_format / text.format), if any. */
  grammar: LlamaGrammar | undefined;
  /** Prompt lookup for a text request (none with tools or a grammar). */
  lookup: RequestLookup | undefined;
  forceToolCall: boolean;
  grammars: GrammarCache;
  lookups: RequestLookups;
  /** The model's tool-call syntax when the native loop speaks it. */
  toolSyntax: ToolCallSyntax | undefined;
  /** The request under the model's chat format (native loop only), when it runs so. */
  chat: ChatFormatPrompt | undefined;
  chatWrapper: ChatWrapper;
  /** Where a tool turn's drafting reports its tokens. */
  usage: Usage;
}

const newToolCallId = (): string => `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;

export async function* generateOnLease(
  generation: LeaseGeneration,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { lease, request, tools, limits, grammar, lookup } = generation;
  const hasTools = tools.length > 0;
  // Continuing, the first tokens' text depends on the answer's last ones (a leading space).
  const precedingTokens: Token[] =
    request.continueFinalMessage === true ? limits.promptTokens.slice(-16) : [];
  if (lease.loop === "native") {
    const input = { ...limits, sequence: lease.lease.sequence, precedingTokens };
    const textGrammar =
      grammar === undefined ? undefined : { text: grammar.grammar, root: grammar.rootRuleName };
    if (generation.chat !== undefined) {
      yield* generateNativeChat(
        { ...input, lookup, chat: generation.chat, textGrammar, newToolCallId },
        result,
      );
    } else if (hasTools && generation.toolSyntax !== undefined) {
      const calls = {
        ...input,
        syntax: generation.toolSyntax,
        grammar: await generation.grammars.nativeCallGrammar(tools, limits.signal),
        forceCall: generation.forceToolCall,
        newToolCallId,
        lookup: generation.lookups.forToolTurn(request, limits.promptTokens),
      };
      yield* textGrammar === undefined
        ? generateNativeWithTools(calls, result)
        : generateNativeStructuredWithTools({ ...calls, textGrammar }, result);
      const drafted = calls.lookup?.opened();
      if (drafted !== undefined) {
        generation.lookups.report(drafted, limits.promptTokens.length, generation.usage);
      }
    } else yield* generateNativeText({ ...input, lookup, grammar: textGrammar }, result);
    return;
  }
  const input = { ...limits, sequence: lease.lease.sequence, precedingTokens };
  if (generation.forceToolCall) {
    const grammarFor = (schema: Parameters<GrammarCache["grammarFor"]>[0]) =>
      generation.grammars.grammarFor(schema, limits.signal);
    yield* generateForcedToolCall({ ...input, grammarFor, tools, newToolCallId }, result);
  } else if (hasTools) {
    const history = request.completion === undefined ? toChatHistory(request.messages) : [];
    yield* generateWithTools(
      { ...input, chatWrapper: generation.chatWrapper, history, tools, newToolCallId },
      result,
    );
  } else {
    yield* generateText(
      lookup === undefined ? { ...input, grammar } : { ...input, lookup },
      result,
    );
  }
}
