// A tool turn on the native loop, in jobs on one sequence: free text that stops when the model
// samples `<tool_call>`; then the call's JSON under the tools' grammar (a complete call ends the
// job); then one sampled token after `\n</tool_call>\n` says whether another call follows. Each
// job's prompt is what the sequence's cache holds after the last (its prompt and what it sampled)
// plus a few tokens, so only those decode. With prompt lookup each call's job drafts its JSON from
// the context as JSON strings quote it (the text's job too when the request asked for lookup).
import type { Token } from "node-llama-cpp";
import type { EngineEvent } from "../../engine.ts";
import { emitTextTokens, type EmitInput } from "../emit-text-tokens.ts";
import { DEFAULT_TEMPERATURE } from "../generate-text.ts";
import type { GenerationResult } from "../generation-result.ts";
import { streamToolCall } from "../tool-calls/stream-tool-call.ts";
import type { ToolCallSyntax } from "../tool-calls/tool-call-syntax.ts";
import type { ToolTurnLookup } from "../prompt-lookup/request-lookup.ts";
import { lookupSpeculation } from "./generate-native-text.ts";
import type {
  NativeGrammar,
  NativeSequence,
  NativeSpeculation,
  NativeTokensOptions,
} from "./native-sequence.ts";

export interface NativeToolsInput extends EmitInput {
  sequence: NativeSequence;
  promptTokens: Token[];
  syntax: ToolCallSyntax;
  /** One call object for any of the request's tools (toolCallSchema, compiled to GBNF). */
  grammar: NativeGrammar;
  /** tool_choice required or a named tool: the turn opens with a call. */
  forceCall: boolean;
  newToolCallId: () => string;
  /** Prompt lookup for the turn's calls (and its text, when draftsText). */
  lookup?: ToolTurnLookup | undefined;
}

export async function* generateNativeWithTools(
  input: NativeToolsInput,
  result: GenerationResult,
): AsyncGenerator<EngineEvent> {
  const { syntax, signal } = input;
  let prompt = input.promptTokens;
  let firstJob = true;
  /** A job's options, or undefined when neither max_tokens nor the context leaves room. */
  const jobOptions = (extra: Partial<NativeTokensOptions>): NativeTokensOptions | undefined => {
    const maxTokens = Math.min(
      input.maxOutputTokens - result.outputTokens,
      input.sequence.contextSize - prompt.length,
    );
    if (maxTokens <= 0) return undefined;
    const sampling = input.sampling;
    return { maxTokens, sampling, defaultTemperature: DEFAULT_TEMPERATURE, signal, ...extra };
  };
  const noteCache = (cachedTokens: number): void => {
    if (firstJob) result.cachedInputTokens = cachedTokens;
    firstJob = false;
  };
  /** Drafting for a job whose prompt is `prompt`: it extends the lookup's history. */
  const drafting = (drafts: boolean): NativeSpeculation | undefined => {
    if (!drafts || input.lookup === undefined) return undefined;
    const lookup = input.lookup.open();
    continueHistory(lookup.history, prompt);
    return lookupSpeculation(lookup);
  };
  // Read after awaits: the signal may have fired meanwhile.
  const aborted = (): boolean => signal?.aborted === true;

  if (input.forceCall) {
    prompt = [...prompt, syntax.openToken, ...syntax.afterOpen];
  } else {
    const textOptions = jobOptions({
      stopTokens: [syntax.openToken],
      speculation: drafting(input.lookup?.draftsText === true),
    });
    if (textOptions === undefined) {
      result.finishReason = "length";
      return;
    }
    const run = input.sequence.tokens(prompt, textOptions);
    yield* emitTextTokens(run.tokens, input, result);
    noteCache(run.cachedTokens());
    if (result.finishReason !== "stop" || run.stopToken() !== syntax.openToken) return;
    result.outputTokens += 1;
    // The cache holds the prompt and the text; <tool_call> ended the job without going in.
    prompt = [...input.sequence.cachedTokens, syntax.openToken, ...syntax.afterOpen];
  }

  for (;;) {
    const callOptions = jobOptions({ grammar: input.grammar, speculation: drafting(true) });
    if (callOptions === undefined) {
      result.finishReason = "length";
      return;
    }
    const run = input.sequence.tokens(prompt, callOptions);
    const complete = yield* streamToolCall(run.tokens, input, result);
    noteCache(run.cachedTokens());
    if (aborted()) {
      result.finishReason = "cancelled";
      return;
    }
    if (!complete) {
      result.finishReason = "length";
      return;
    }
    result.finishReason = "tool_calls";

    // Another call follows when the model opens one right after this call's end; any other
    // token ends the turn (and is not shown), as in node-llama-cpp's LlamaChat.
    prompt = [...input.sequence.cachedTokens, ...syntax.afterCall];
    const nextOptions = jobOptions({ stopTokens: [syntax.openToken] });
    if (nextOptions === undefined) return;
    const next = input.sequence.tokens(prompt, { ...nextOptions, maxTokens: 1 });
    for await (const _token of next.tokens) result.outputTokens += 1;
    if (aborted() || next.stopToken() !== syntax.openToken) return;
    result.outputTokens += 1;
    prompt = [...prompt, syntax.openToken, ...syntax.afterOpen];
  }
}

/** Brings the history up to a job's prompt, which extends it (the cache plus the syntax's glue). */
function continueHistory(history: Token[], prompt: readonly Token[]): void {
  const continues =
    prompt.length >= history.length && history.every((token, index) => token === prompt[index]);
  if (!continues) history.length = 0;
  for (let index = history.length; index < prompt.length; index += 1) {
    history.push(prompt[index] as Token);
  }
}
