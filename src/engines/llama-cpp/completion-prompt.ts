// Renders a raw completion or fill-in-the-middle request into tokens, with no chat template: the
// model's own FIM tokens when its vocabulary has them, else the configured template, else an error.
import type { LlamaModel, Token } from "node-llama-cpp";
import type { CompletionPrompt } from "../engine.ts";
import { SparkError } from "../../protocol/spark-error.ts";

/** Qwen2.5-Coder's FIM vocabulary (also StarCoder2's repository tokens' role). */
export interface FimTokens {
  prefix: Token;
  suffix: Token;
  middle: Token;
  repositoryName: Token | undefined;
  fileSeparator: Token | undefined;
}

const REPOSITORY_NAME = "spark";

/**
 * Where the suffix goes. "psm" (prefix, suffix, middle): the order every FIM model is trained on;
 * the suffix follows the cursor, so each keystroke re-evaluates it. "spm" (suffix, prefix,
 * middle: `<|fim_suffix|>S<|fim_prefix|>P<|fim_middle|>`, llama-server's `--spm-infill`): the
 * suffix, unchanged while the user types, stays cached and a keystroke evaluates only the
 * prefix's last tokens; only for models trained on it too (a PSM-only model completes worse).
 */
export const FIM_ORDERS = ["psm", "spm"] as const;
export type FimOrder = (typeof FIM_ORDERS)[number];

/**
 * Where the prompt's prefix ends. "line" (default): at the start of the cursor's line, the line's
 * text before the cursor going after <|fim_middle|> as the start of the middle (where llama.vscode
 * splits too). Typing then only extends the prompt's end, so in PSM order too the suffix stays
 * cached and a keystroke evaluates the typed tokens; the suffix is evaluated again once per line.
 * It is the same document and the same format: the state the model is in after generating that
 * text itself, and a split at a line start is the commonest FIM training split. "cursor": the
 * prefix ends at the cursor (the classic request; in PSM every keystroke re-evaluates the suffix).
 */
export const FIM_SPLITS = ["line", "cursor"] as const;
export type FimSplit = (typeof FIM_SPLITS)[number];

/** A request's prompt tokens, and how many of them a follow-up is expected to repeat. */
export interface RenderedPrompt {
  tokens: Token[];
  /** A chat prompt's all; a FIM prompt's those before the cursor (the pool matches by it). */
  stableLength: number;
}

/** One vocabulary entry for a special token's text, or undefined when the model lacks it. */
function specialToken(model: LlamaModel, text: string): Token | undefined {
  const tokens = model.tokenize(text, true);
  const only = tokens.length === 1 ? tokens[0] : undefined;
  // A single token that is the plain text would round-trip too; a special token renders only
  // when special tokens are detokenized.
  if (only === undefined || model.detokenize([only], false) === text) return undefined;
  return only;
}

export function findFimTokens(model: LlamaModel): FimTokens | undefined {
  const prefix = specialToken(model, "<|fim_prefix|>");
  const suffix = specialToken(model, "<|fim_suffix|>");
  const middle = specialToken(model, "<|fim_middle|>");
  if (prefix === undefined || suffix === undefined || middle === undefined) return undefined;
  return {
    prefix,
    suffix,
    middle,
    repositoryName: specialToken(model, "<|repo_name|>"),
    fileSeparator: specialToken(model, "<|file_sep|>"),
  };
}

/** How a model's FIM prompts are rendered (its configuration). */
export interface FimFormat {
  tokens: FimTokens | undefined;
  /** For a model without FIM tokens; its placeholders' order is its own. */
  template: string | undefined;
  /** With FIM tokens: where the suffix goes. */
  order: FimOrder;
  /** With FIM tokens: where the prefix ends. */
  split: FimSplit;
}

/**
 * Tokens for a completion request. What changes least comes first, so a keystroke re-evaluates
 * only the tail: other files, then this file's name, then the FIM block in the model's order;
 * with the line split, the text typed on the cursor's line is the block's last part in either
 * order.
 */
export function renderCompletionPrompt(
  model: LlamaModel,
  completion: CompletionPrompt,
  format: FimFormat,
): RenderedPrompt {
  const text = (value: string): Token[] => model.tokenize(value, false);
  if (completion.suffix === undefined) {
    const tokens = text(completion.prefix);
    return { tokens, stableLength: tokens.length };
  }
  if (format.tokens !== undefined) {
    if (format.split === "cursor")
      return renderWithFimTokens(completion, format.tokens, format.order, text);
    const tokens = renderWithFimTokens(
      splitAtLineStart(completion),
      format.tokens,
      format.order,
      text,
    ).tokens;
    // The cursor is at the prompt's end: the next keystroke extends all of it.
    return { tokens, stableLength: tokens.length };
  }
  if (format.template !== undefined) return renderWithTemplate(model, completion, format.template);
  throw new SparkError(
    "fim_unsupported",
    "This model has no fill-in-the-middle tokens (<|fim_prefix|>, <|fim_suffix|>, " +
      "<|fim_middle|>) and no fim_template is configured for it: set fim_template in the " +
      'model\'s configuration (e.g. "<PRE> {prefix} <SUF>{suffix} <MID>") or use a FIM model ' +
      "such as Qwen2.5-Coder.",
  );
}

function renderWithFimTokens(
  completion: CompletionPrompt,
  fim: FimTokens,
  order: FimOrder,
  text: (value: string) => Token[],
): RenderedPrompt {
  const tokens: Token[] = [];
  const extra = completion.extra ?? [];
  const repositoryLevel =
    fim.repositoryName !== undefined &&
    fim.fileSeparator !== undefined &&
    (extra.length > 0 || completion.filename !== undefined);
  if (repositoryLevel && fim.repositoryName !== undefined && fim.fileSeparator !== undefined) {
    tokens.push(fim.repositoryName, ...text(`${REPOSITORY_NAME}\n`));
    for (const chunk of extra) {
      tokens.push(fim.fileSeparator, ...text(`${chunk.filename}\n${chunk.text}\n`));
    }
    if (completion.filename !== undefined)
      tokens.push(fim.fileSeparator, ...text(`${completion.filename}\n`));
  } else if (extra.length > 0) {
    // No repository tokens: other files go in as plain text before the FIM block.
    for (const chunk of extra) tokens.push(...text(`// ${chunk.filename}\n${chunk.text}\n`));
  }
  const suffix = [fim.suffix, ...text(completion.suffix ?? "")];
  if (order === "spm") tokens.push(...suffix);
  tokens.push(fim.prefix, ...text(completion.prefix));
  // The next keystroke changes what follows the cursor's last tokens: here the pool matches.
  const stableLength = tokens.length;
  if (order === "psm") tokens.push(...suffix);
  tokens.push(fim.middle, ...text(completion.middle ?? ""));
  return { tokens, stableLength };
}

/** The cursor line's text before the cursor moves from the prefix to the middle's start. */
function splitAtLineStart(completion: CompletionPrompt): CompletionPrompt {
  const lineStart = completion.prefix.lastIndexOf("\n") + 1;
  return {
    ...completion,
    prefix: completion.prefix.slice(0, lineStart),
    middle: completion.prefix.slice(lineStart) + (completion.middle ?? ""),
  };
}

/** `{prefix}` and `{suffix}` in the template are replaced; the rest may name special tokens. */
function renderWithTemplate(
  model: LlamaModel,
  completion: CompletionPrompt,
  template: string,
): RenderedPrompt {
  const tokens: Token[] = [];
  let stableLength: number | undefined;
  for (const chunk of completion.extra ?? [])
    tokens.push(...model.tokenize(`// ${chunk.filename}\n${chunk.text}\n`, false));
  for (const part of template.split(/(\{prefix\}|\{suffix\})/)) {
    if (part === "{prefix}") {
      tokens.push(...model.tokenize(completion.prefix, false));
      stableLength ??= tokens.length;
    } else if (part === "{suffix}") tokens.push(...model.tokenize(completion.suffix ?? "", false));
    else if (part !== "") tokens.push(...model.tokenize(part, true));
  }
  tokens.push(...model.tokenize(completion.middle ?? "", false));
  return { tokens, stableLength: stableLength ?? tokens.length };
}
