// A chat request as the native loop runs it under the model's chat format, as llama-server does:
// the template's prompt tokenized with special tokens parsed, the format's tool-call grammar (lazy
// with its triggers, or forced and prefilled with the generation prompt it opens with), the stops
// the format adds, and the preserved tokens whose text the parser needs to see.
import type { LlamaModel, Token } from "node-llama-cpp";
import type { EngineRequest, JsonSchema, ToolDefinition } from "../../engine.ts";
import type { RenderedPrompt } from "../completion-prompt.ts";
import type { NativeGrammar } from "../native-loop/native-sequence.ts";
import type { GrammarTrigger } from "./chat-format-addon.ts";
import type { ChatFormat, ChatOutputParser, RenderedChat } from "./chat-format.ts";

export interface ChatFormatPrompt {
  prompt: RenderedPrompt;
  rendered: RenderedChat;
  /** The format's grammar (tool calls), or undefined when the output is free. */
  grammar: NativeGrammar | undefined;
  /** The format's additional stops (text). */
  stops: string[];
  /** Special tokens shown as text in the output (call markers the parser reads). */
  preservedTokens: ReadonlySet<Token>;
  parser: ChatOutputParser;
}

/**
 * Throws a SparkError (invalid_request) when the template refuses the request. `tools` are the
 * request's (requestTools): none renders no tools section and gives no grammar. `jsonSchema`
 * (structured output, checked by chatFormatJsonSchema) gives llama.cpp's grammar for it.
 */
export function renderChatFormatPrompt(
  format: ChatFormat,
  model: LlamaModel,
  request: EngineRequest,
  tools: readonly ToolDefinition[],
  jsonSchema?: JsonSchema,
): ChatFormatPrompt {
  // Continuing a partial answer (a replica taking over a response): the prompt the answer started
  // from, then the answer's text, as the first replica's context held it; the template's own
  // continue_final_message rendering differs from that at the cut.
  const last = request.messages.at(-1);
  const answerSoFar =
    request.continueFinalMessage === true && last?.role === "assistant" ? last.content : undefined;
  const rendered = format.render({
    messages: answerSoFar === undefined ? request.messages : request.messages.slice(0, -1),
    ...(tools.length === 0 ? {} : { tools, toolChoice: request.toolChoice ?? "auto" }),
    ...(request.parallelToolCalls === undefined
      ? {}
      : { parallelToolCalls: request.parallelToolCalls }),
    ...(jsonSchema === undefined ? {} : { jsonSchema }),
  });
  const startTokens = tokenizePrompt(model, rendered.prompt);
  const tokens =
    answerSoFar === undefined || answerSoFar === ""
      ? startTokens
      : [...startTokens, ...model.tokenize(answerSoFar, false)];
  const preservedTokens = new Set<Token>();
  for (const text of rendered.preservedTokens) {
    const single = singleToken(model, text);
    if (single !== undefined) preservedTokens.add(single);
  }
  return {
    prompt: { tokens, stableLength: tokens.length },
    rendered,
    grammar:
      tools.length === 0 && jsonSchema === undefined
        ? undefined
        : formatGrammar(model, rendered, preservedTokens, request.parallelToolCalls === false),
    stops: rendered.additionalStops,
    preservedTokens,
    parser: format.parser(rendered, { parseToolCalls: tools.length > 0 }),
  };
}

/**
 * As llama-server tokenizes a prompt: special tokens parsed, and BOS added where the vocabulary
 * wants one and the template did not print it.
 */
function tokenizePrompt(model: LlamaModel, text: string): Token[] {
  const tokens = model.tokenize(text, true);
  const bos = model.tokens.bos;
  if (model.tokens.shouldPrependBosToken && bos !== null && tokens[0] !== bos)
    return [bos, ...tokens];
  return tokens;
}

function singleToken(model: LlamaModel, text: string): Token | undefined {
  const tokens = model.tokenize(text, true);
  return tokens.length === 1 ? tokens[0] : undefined;
}

function formatGrammar(
  model: LlamaModel,
  rendered: RenderedChat,
  preservedTokens: ReadonlySet<Token>,
  singleCall: boolean,
): NativeGrammar | undefined {
  if (rendered.grammar === "") return undefined;
  const grammar = singleCall ? withOneCall(rendered.grammar) : rendered.grammar;
  if (rendered.grammarLazy) {
    return {
      text: grammar,
      root: "root",
      lazy: lazyTriggers(model, rendered.grammarTriggers, preservedTokens),
      thinking: thinkingTags(model, rendered),
    };
  }
  // A forced call's grammar opens with the generation prompt, which the prompt already holds.
  return {
    text: withCompactSpace(withoutLeadingText(grammar)),
    root: "root",
    prefill: generationPromptTokens(model, rendered),
  };
}

/**
 * parallel_tool_calls false: llama.cpp's PEG formats write their calls rule as a repetition
 * (`tool-calls ::= (tool-call space)+`) whatever its parallel_tool_calls input says, so the model
 * could write several; one repetition is kept, after which the grammar lets only the turn end.
 */
function withOneCall(grammar: string): string {
  return grammar.replace(/^(tool-calls ::= )\((.*)\)\+$/m, "$1$2");
}

/**
 * llama.cpp's json-schema-to-grammar lets any JSON gap hold `space ::= | " " | "\n"{1,2} [ \t]{0,20}`
 * (up to 22 characters, each a choice the model must make): a model unsure of its call, or one
 * whose logits tie (ties go to the tab), spends its budget on whitespace inside the call and
 * between calls. A forced call is compact JSON as OpenAI's strict mode emits it: at most one space
 * between tokens, so every sampled token moves the call forward. The lazy grammar (a call the model
 * chose after free text) keeps llama.cpp's rule, since there the model writes its call as trained.
 */
function withCompactSpace(grammar: string): string {
  return grammar.replace(/^space ::= .*$/m, 'space ::= | " "');
}

/**
 * A forced call (tool_choice required or named) opens with the call, as OpenAI's does: llama.cpp's
 * forced-call root lets free text (`until-N?`, anything short of the call's marker) come first,
 * which a model may spend its whole budget on. Reasoning before the call stays allowed.
 */
function withoutLeadingText(grammar: string): string {
  return grammar.replace(/^(root ::= .*?) until-\d+\?( |$)/m, "$1$2");
}

/**
 * llama-server's conversion (server params_from_json, common_sampler_init): a word that is one
 * preserved token triggers on that token, any other word on its escaped text anywhere in the
 * output; a full pattern is anchored at both ends.
 */
function lazyTriggers(
  model: LlamaModel,
  triggers: readonly GrammarTrigger[],
  preservedTokens: ReadonlySet<Token>,
): { patterns: string[]; tokens: Token[] } {
  const patterns: string[] = [];
  const tokens: Token[] = [];
  for (const trigger of triggers) {
    switch (trigger.type) {
      case "token":
      case "word": {
        const single = singleToken(model, trigger.value);
        if (single !== undefined && preservedTokens.has(single)) tokens.push(single);
        else patterns.push(escapeRegex(trigger.value));
        break;
      }
      case "pattern":
        patterns.push(trigger.value);
        break;
      case "pattern-full": {
        const pattern = trigger.value;
        patterns.push(
          pattern === ""
            ? "^$"
            : `${pattern.startsWith("^") ? "" : "^"}${pattern}${pattern.endsWith("$") ? "" : "$"}`,
        );
        break;
      }
      default:
        trigger.type satisfies never;
    }
  }
  return { patterns, tokens };
}

/**
 * llama-server's reasoning_budget_start_tag and _end_tags, tokenized as its server-schema does
 * (special tokens parsed), with the generation prompt the gate reads first; none without both.
 */
function thinkingTags(model: LlamaModel, rendered: RenderedChat): NativeGrammar["thinking"] {
  const ends = rendered.thinkingEndTags
    .filter((tag) => tag !== "")
    .map((tag) => model.tokenize(tag, true));
  if (rendered.thinkingStartTag === "" || ends.length === 0) return undefined;
  return {
    start: model.tokenize(rendered.thinkingStartTag, true),
    ends,
    prefill: generationPromptTokens(model, rendered),
  };
}

/** common_sampler_init's prefill: the generation prompt's tokens, less a leading space token. */
function generationPromptTokens(model: LlamaModel, rendered: RenderedChat): Token[] {
  const text = rendered.generationPrompt;
  if (text === "") return [];
  const tokens = model.tokenize(text, true);
  const first = tokens[0];
  if (first !== undefined && !/^\s/.test(text)) {
    const piece = model.detokenize([first], true);
    if (/^\s/.test(piece)) return tokens.slice(1);
  }
  return tokens;
}

/** common's regex_escape: std::regex (ECMAScript) special characters. */
function escapeRegex(text: string): string {
  return text.replace(/[.^$|()*+?[\]{}\\]/g, "\\$&");
}
