// What the `auto` rules look at in a request: the latest instruction, the files it names or that
// this turn's tool calls touched, the context size, and whether it is an inline completion.
import type { EngineRequest } from "../engines/engine.ts";
import { estimateInputTokens } from "../engines/openai-compatible/inspect.ts";

export interface RouteSignals {
  /** The latest user message: what the person asked for this turn. */
  instruction: string;
  /** Distinct file paths named in the instruction or in tool calls since it. */
  paths: string[];
  /** A rough prompt size (characters / 4): enough to compare with a threshold. */
  contextTokens: number;
  /** No tools and a small output budget, or a prediction: an editor's inline completion. */
  completion: boolean;
}

/** Output budgets at or under this, with no tools, are what inline completions ask for. */
const COMPLETION_MAX_OUTPUT_TOKENS = 256;
const WELL_KNOWN_FILES = new Set([
  "Dockerfile",
  "Containerfile",
  "Makefile",
  "Jenkinsfile",
  "Procfile",
  "Gemfile",
]);

export function routeSignals(request: EngineRequest): RouteSignals {
  const { messages } = request;
  const lastUserIndex = messages.findLastIndex((message) => message.role === "user");
  const instruction = lastUserIndex < 0 ? "" : (messages[lastUserIndex]?.content ?? "");
  const paths = new Set(pathsIn(instruction));
  for (const message of messages.slice(lastUserIndex + 1)) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? [])
      for (const found of pathsIn(call.arguments)) paths.add(found);
  }
  const noTools = request.tools === undefined || request.tools.length === 0;
  const maxOutput = request.sampling?.maxOutputTokens;
  return {
    instruction,
    paths: [...paths],
    contextTokens: estimateInputTokens(messages),
    completion:
      request.prediction !== undefined ||
      (noTools && maxOutput !== undefined && maxOutput <= COMPLETION_MAX_OUTPUT_TOKENS),
  };
}

/** Path-like words: with a slash, with a file extension, or a well-known extension-less name. */
export function pathsIn(text: string): string[] {
  const found: string[] = [];
  for (const raw of text.split(/[\s"'`()[\]{}<>,;]+/)) {
    const word = raw.replace(/^[*:]+/, "").replace(/[.:!?*]+$/, "");
    if (word === "" || word.includes("://")) continue;
    const base = word.slice(word.lastIndexOf("/") + 1);
    const hasExtension =
      /^[\w.-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(base) && !/^(e\.g|i\.e)$/i.test(word);
    const slashed = word.includes("/") && /^[\w./@~-]+$/.test(word) && /\w/.test(base);
    if (hasExtension || slashed || WELL_KNOWN_FILES.has(base))
      found.push(word.replace(/^\.\//, ""));
  }
  return found;
}
