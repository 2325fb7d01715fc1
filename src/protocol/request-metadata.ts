// `metadata` on a create request (Responses, Chat Completions), with OpenAI's limits: at most 16
// pairs, keys up to 64 characters, string values up to 512. A stored response keeps and echoes its
// metadata, so without the limits one 4 MiB request could hold 200,000 keys in the store.
import { z } from "zod";

export const METADATA_LIMITS = {
  maxPairs: 16,
  maxKeyCharacters: 64,
  maxValueCharacters: 512,
} as const;

/** What breaks a limit, worded to follow "'metadata' " in an error; undefined when nothing does.
 * Only limits: a value that is not an object of strings is the record schema's to describe. */
export function metadataLimitProblem(metadata: unknown): string | undefined {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
    return undefined;
  const { maxPairs, maxKeyCharacters, maxValueCharacters } = METADATA_LIMITS;
  const keys = Object.keys(metadata);
  if (keys.length > maxPairs) {
    return `has ${keys.length} key/value pairs, over the limit of ${maxPairs}`;
  }
  for (const key of keys) {
    if (exceedsCharacters(key, maxKeyCharacters)) {
      return `has a key of more than ${maxKeyCharacters} characters ('${key.slice(0, 16)}…'); keys are at most ${maxKeyCharacters} characters`;
    }
    const value = (metadata as Record<string, unknown>)[key];
    if (typeof value === "string" && exceedsCharacters(value, maxValueCharacters)) {
      return `has a value of more than ${maxValueCharacters} characters at key '${key}'; values are at most ${maxValueCharacters} characters`;
    }
  }
  return undefined;
}

/** Counts characters (code points, as a person would), stopping once past the limit. */
function exceedsCharacters(text: string, limit: number): boolean {
  // Code units never undercount code points, so a short string needs no counting.
  if (text.length <= limit) return false;
  let characters = 0;
  for (const _character of text) {
    characters += 1;
    if (characters > limit) return true;
  }
  return false;
}

/**
 * The limits run before the record's own checks, and a broken limit stops there: 200,000 keys are
 * refused after one count instead of 200,000 checked entries. The issue's `params.description` is
 * the sentence the gateway's schema errors show.
 */
export const metadataSchema = z
  .unknown()
  .superRefine((value, context) => {
    const problem = metadataLimitProblem(value);
    if (problem !== undefined)
      context.addIssue({ code: "custom", message: problem, params: { description: problem } });
  })
  .pipe(z.record(z.string(), z.string()));
