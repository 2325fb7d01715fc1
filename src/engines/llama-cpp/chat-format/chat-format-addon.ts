// Loads native/chat-format (llama.cpp's common/chat compiled at npm install), or says why it is
// not there, so the engine can fall back to node-llama-cpp's chat wrappers.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

declare const handleBrand: unique symbol;
export type TemplatesHandle = { readonly [handleBrand]: "templates" };
export type ParserHandle = { readonly [handleBrand]: "parser" };

/** What crosses the boundary; every string argument and result is JSON unless named otherwise. */
export interface ChatFormatAddon {
  /** Parses a Jinja chat template; throws on a syntax error. */
  openTemplates(source: string, bosToken: string, eosToken: string): TemplatesHandle;
  templateCapabilities(templates: TemplatesHandle): string;
  /** A Chat Completions request body (plus `now`) → AppliedTemplateJson. */
  applyTemplate(templates: TemplatesHandle, request: string): string;
  openParser(options: string): ParserHandle;
  /** Model output so far (`partial`) or whole → ParsedMessageJson. */
  parseOutput(parser: ParserHandle, text: string, partial: boolean): string;
}

export interface GrammarTrigger {
  /** "word": generation contains the text; "pattern": a regex matches; "pattern-full": matches it all. */
  type: "token" | "word" | "pattern" | "pattern-full";
  value: string;
}

export interface AppliedTemplateJson {
  /** llama.cpp's name for the format (peg-native, peg-gemma4, Content-only, …). */
  format: string;
  formatId: number;
  prompt: string;
  /** GBNF for tool calls (or the JSON schema); empty: none. */
  grammar: string;
  /** true: the grammar applies only from a trigger on (the model may answer in text first). */
  grammarLazy: boolean;
  grammarTriggers: GrammarTrigger[];
  /** Special tokens the grammar and parser need kept as text. */
  preservedTokens: string[];
  additionalStops: string[];
  /** The serialized PEG parser for this request's output. */
  parser: string;
  /** What the prompt ends with that the model's output continues (e.g. "<think>"). */
  generationPrompt: string;
  supportsThinking: boolean;
  thinkingStartTag: string;
  thinkingEndTags: string[];
}

export interface ParsedMessageJson {
  content: string;
  reasoning_content: string;
  tool_calls: { id: string; name: string; arguments: string }[];
}

export type ChatFormatLoad = { addon: ChatFormatAddon } | { addon?: undefined; reason: string };

export const defaultChatFormatAddonPath = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../../native/chat-format/build/Release/spark_chat_format.node",
);

const loaded = new Map<string, ChatFormatLoad>();

/** Loads the addon once per path; it links no llama.cpp library, so it loads anywhere Node does. */
export function loadChatFormatAddon(path = defaultChatFormatAddonPath): ChatFormatLoad {
  let result = loaded.get(path);
  if (result !== undefined) return result;
  if (!existsSync(path)) {
    result = {
      reason:
        `llama.cpp's chat formats are not built (${path} is missing): ` +
        "run `npx tsx scripts/build-native-loop.ts` to see why",
    };
  } else {
    try {
      result = { addon: createRequire(import.meta.url)(path) as ChatFormatAddon };
    } catch (error) {
      result = { reason: `llama.cpp's chat formats did not load: ${String(error)}` };
    }
  }
  loaded.set(path, result);
  return result;
}
