// A chat request on the native loop under the model's chat format (llama-server's path): one job
// decodes the template's prompt and samples under the format's grammar (lazy: free text until a
// call's trigger), the output's text is parsed by the format's parser as it streams, and the parse
// becomes text, reasoning and tool-call events; the final parse ends each call.
import type { Token } from "node-llama-cpp";
import type { EngineEvent } from "../../engine.ts";
import type { ChatFormatPrompt } from "../chat-format/chat-format-prompt.ts";
import type { ChatOutputParser, ParsedChatMessage } from "../chat-format/chat-format.ts";
import { ParsedMessageEvents } from "../chat-format/parsed-message-events.ts";
import { emitTextTokens, type EmitInput } from "../emit-text-tokens.ts";
import { DEFAULT_TEMPERATURE } from "../generate-text.ts";
import type { GenerationResult } from "../generation-result.ts";
import type { PromptLookup } from "../prompt-lookup/prompt-lookup.ts";
import { lookupSpeculation } from "./generate-native-text.ts";
import type { NativeGrammar, NativeSequence } from "./native-sequence.ts";

export interface NativeChatInput extends EmitInput {
  sequence: NativeSequence;
  promptTokens: Token[];
  chat: ChatFormatPrompt;
  /** Structured output's grammar, for a request without tools (the format's own otherwise). */
  textGrammar?: NativeGrammar | undefined;
  newToolCallId: () => string;
  /** Prompt lookup, for free text only (no grammar). */
  lookup?: { drafts: PromptLookup; history: Token[] } | undefined;
}

export async function* generateNativeChat(
  input: NativeChatInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { chat } = input;
  const grammar = chat.grammar ?? input.textGrammar;
  const run = input.sequence.tokens(input.promptTokens, {
    maxTokens: input.maxOutputTokens,
    sampling: input.sampling,
    defaultTemperature: DEFAULT_TEMPERATURE,
    signal: input.signal,
    speculation:
      input.lookup === undefined || grammar !== undefined
        ? undefined
        : lookupSpeculation(input.lookup),
    grammar,
  });
  result.cachedInputTokens = run.cachedTokens();
  const events = new ParsedMessageEvents(input.newToolCallId);
  const textInput: EmitInput = {
    ...input,
    sampling: { ...input.sampling, stop: [...(input.sampling.stop ?? []), ...chat.stops] },
    shownSpecialTokens: chat.preservedTokens,
  };
  let output = "";
  try {
    for await (const event of emitTextTokens(run.tokens, textInput, result)) {
      if (event.type !== "text-delta") {
        yield event;
        continue;
      }
      output += event.text;
      const parsed = parseOrUndefined(chat.parser, output, true);
      if (parsed !== undefined) yield* events.update(parsed);
    }
  } finally {
    // emitTextTokens waited for the job's end: what the addon really reused is known now.
    result.cachedInputTokens = run.cachedTokens();
  }
  if (result.finishReason === "cancelled") return;
  // An output cut short (max_tokens) may not parse whole: what the partial parse found stands.
  const final = parseOrUndefined(chat.parser, output, false) ??
    parseOrUndefined(chat.parser, output, true) ?? {
      content: output,
      reasoning: "",
      toolCalls: [],
    };
  yield* events.finish(final, { lastCallCut: endedInsideCall(final, result) });
  if (events.callCount > 0 && result.finishReason === "stop") result.finishReason = "tool_calls";
}

/**
 * The token limit ended the output inside its last call: llama.cpp's parser returns a cut call
 * as far as it got (`{"mode": "fa`) even in a final parse, so a call whose arguments do not
 * parse is the cut one. It gets no end, as the <tool_call> jobs leave a cut call: the gateway
 * reports it incomplete rather than a finished call a client could run.
 */
function endedInsideCall(parsed: ParsedChatMessage, result: GenerationResult): boolean {
  if (result.finishReason !== "length") return false;
  const last = parsed.toolCalls.at(-1);
  if (last === undefined) return false;
  try {
    JSON.parse(last.arguments);
    return false;
  } catch {
    return true;
  }
}

function parseOrUndefined(
  parser: ChatOutputParser,
  text: string,
  partial: boolean,
): ParsedChatMessage | undefined {
  try {
    return parser.parse(text, partial);
  } catch {
    // A partial output the parser cannot read yet is read again with the next tokens; a final
    // one that does not parse is read as partial by the caller.
    return undefined;
  }
}
