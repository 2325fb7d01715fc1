// How many rules llama.cpp makes of a GBNF text, and the most a request's grammar may have: its
// parser copies a repeated item once per count (`x{0,1000}` is a thousand rules), and parsing,
// like every sampling step under the grammar, grows with the rules.
import { SparkError } from "../../../protocol/spark-error.ts";

/** Above a real schema's grammar (a 1,000-value enum is about 1,000 rules); llama.cpp parses
 * a grammar this size in a few milliseconds, on the main thread, once per request. */
export const MAX_GRAMMAR_RULES = 5_000;

/** One per rule line, plus each repetition's larger count. */
export function grammarRuleCount(gbnf: string): number {
  let rules = 0;
  for (const _rule of gbnf.matchAll(/^[\w-]+ ::= /gm)) rules += 1;
  for (const repetition of gbnf.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    rules += Math.max(Number(repetition[1]), Number(repetition[2] || 0));
  }
  return rules;
}

/** Throws invalid_request naming the limit when `gbnf` is over it; `asked` names the schema. */
export function checkGrammarRules(gbnf: string, asked: string): void {
  const rules = grammarRuleCount(gbnf);
  if (rules <= MAX_GRAMMAR_RULES) return;
  throw new SparkError(
    "invalid_request",
    `Structured output: ${asked} makes a grammar of about ${rules} rules, over the limit of ` +
      `${MAX_GRAMMAR_RULES} grammar rules (long enums, and minLength/maxLength/minItems/maxItems ` +
      `bounds, make the most). Shorten the schema's lists or lower those bounds.`,
  );
}
