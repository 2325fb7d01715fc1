// Whether the native loop can run a model's tool calls: it speaks the Hermes/Qwen syntax,
// `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>`, with `<tool_call>` one token the loop
// stops on. Other chat wrappers' syntaxes (Llama 3.1, Functionary, …) stay on node-llama-cpp's LlamaChat.
import { LlamaText, type ChatWrapper, type LlamaModel, type Token } from "node-llama-cpp";

export interface ToolCallSyntax {
  /** `<tool_call>`: sampling it opens a call. */
  openToken: Token;
  /** What follows the open token before the call's JSON: a line break. */
  afterOpen: Token[];
  /** What follows a call's JSON, up to where the next call's open token would be. */
  afterCall: Token[];
}

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";

/** The syntax, or why the native loop cannot run this model's tool calls. */
export function findToolCallSyntax(
  chatWrapper: ChatWrapper,
  model: LlamaModel,
): ToolCallSyntax | { reason: string } {
  const call = chatWrapper.settings.functions.call;
  const rendered = [call.prefix, call.paramsPrefix, call.suffix].map((text) =>
    LlamaText(text).toString(),
  );
  const between = LlamaText(
    chatWrapper.settings.functions.parallelism?.call.betweenCalls ?? "",
  ).toString();
  const hermes = [`${OPEN}\n{"name": "`, `", "arguments": `, `}\n${CLOSE}`];
  if (rendered.some((text, index) => text.trimStart() !== hermes[index])) {
    return {
      reason: `${chatWrapper.wrapperName}'s tool-call syntax is not <tool_call> JSON (${JSON.stringify(rendered[0])})`,
    };
  }
  const open = model.tokenize(OPEN, true);
  if (open.length !== 1 || open[0] === undefined) {
    return { reason: `${OPEN} is not one token in this model's vocabulary` };
  }
  return {
    openToken: open[0],
    afterOpen: model.tokenize("\n", true),
    afterCall: model.tokenize(`\n${CLOSE}${between}`, true),
  };
}
