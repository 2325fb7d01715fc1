// Whether the user asked for a command to be run: an imperative sentence of theirs ("run npm test",
// "please run `cargo build`", "fix it, then run `npm test`") names exactly that command. A
// mention in a question, a negation, a warning, a conditional, a quotation, a fenced or uploaded
// block is not a request, and a later "actually, don't" withdraws every earlier one.
import { parseShellCommand } from "./parse-shell-command.ts";
import { typedSentences, type SentenceToken, type TypedSentence } from "./typed-sentences.ts";

export type CommandRequestCheck = { requested: true } | { requested: false; reason: string };

const RUN_VERBS = new Set(["run", "rerun", "re-run", "execute", "exec", "launch", "invoke"]);
/** Words that may stand between a clause's start and its verb without changing its meaning. */
const LEAD_INS = new Set([
  ...["please", "pls", "kindly", "now", "then", "and", "also", "next", "finally", "first"],
  ...["just", "so", "ok", "okay", "alright", "go", "ahead", "quickly", "again", "let's", "lets"],
  "do",
]);
/** What may follow a command written as plain words, ending it. */
const PLAIN_FOLLOWERS = new Set([
  ...["and", "then", "to", "so", "please", "now", "again", "first", "for", "too", "once"],
  ...["before", "after", "locally", "here", "afterwards", "instead", "also"],
]);
/** Connect an object phrase to the command: "run the tests with `npm test`", "run this: `…`". */
const CONNECTORS = new Set(["with", "using", "via", "like", "as"]);
const LIST_SEPARATORS = new Set(["and", "then", "or", "-", "*"]);
const MAX_OBJECT_WORDS = 4;
const NEGATIONS = new Set([
  ...["not", "never", "no", "nope", "don't", "dont", "doesn't", "didn't", "won't", "wouldn't"],
  ...["shouldn't", "mustn't", "can't", "cannot", "avoid", "without", "stop", "nor", "neither"],
  ...["refrain", "forbid", "forbidden", "prohibited", "except"],
]);
/** A sentence that speaks of a command hypothetically, conditionally or as a danger asks nothing. */
const HYPOTHETICALS = new Set([
  ...["if", "unless", "would", "could", "might", "should", "whether", "suppose", "supposing"],
  ...["imagine", "hypothetically", "otherwise", "when", "whenever", "wonder", "maybe", "perhaps"],
  ...["disaster", "dangerous", "danger", "careful", "warning", "caution", "beware", "destroy"],
  ...["wipe", "wipes", "harmful", "risky", "accidentally", "anyone", "someone"],
]);
const INTERROGATIVES = new Set([
  ...["what", "what's", "whats", "why", "how", "which", "who", "where", "is", "are", "was"],
  ...["can", "will", "shall", "may", "does", "did", "has", "have", "explain", "describe"],
]);
const CONTRASTS = new Set(["but", "however", "instead", "rather", "though", "although"]);
const BACK_REFERENCES = new Set(["it", "that", "this", "them", "those", "these", "either"]);
/** Double negatives and reminders that ask for the action: "don't forget to run npm test". */
const REMINDERS =
  /\b(?:don't|dont|do not|never)\s+forget\s+to\b|\b(?:remember|be sure|make sure)\s+(?:to|you)\b/gi;

function isWord(token: SentenceToken | undefined, words: ReadonlySet<string>): boolean {
  return token?.kind === "word" && words.has(token.lower);
}

function isNegation(token: SentenceToken): boolean {
  return token.kind === "word" && (NEGATIONS.has(token.lower) || token.lower.endsWith("n't"));
}

function sameWords(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((word, index) => word === right[index]);
}

function codeNames(code: string, words: readonly string[]): boolean {
  const parsed = parseShellCommand(code.trim().replace(/^[$>]\s+/, ""));
  return parsed.kind === "simple" && sameWords(parsed.words, words);
}

/** Whether the verb at `verbIndex` starts a clause: only lead-ins stand between it and a boundary. */
function startsClause(tokens: readonly SentenceToken[], verbIndex: number): boolean {
  for (let index = verbIndex - 1; index >= 0; index -= 1) {
    const token = tokens[index] as SentenceToken;
    if (token.kind === "pause" || isWord(token, CONTRASTS)) return true;
    if (token.kind !== "word" || !LEAD_INS.has(token.lower)) return false;
    if (token.lower === "and" || token.lower === "then") return true;
  }
  return true;
}

/** The code spans a verb governs: `run X`, `run X and Y`, `run the tests with X`, `run this: X`. */
function governedCode(tokens: readonly SentenceToken[], verbIndex: number): string[] {
  let index = verbIndex + 1;
  if (tokens[index]?.kind !== "code") {
    let objectWords = 0;
    while (tokens[index]?.kind === "word" && !isWord(tokens[index], CONNECTORS)) {
      if (isNegation(tokens[index] as SentenceToken) || objectWords === MAX_OBJECT_WORDS) return [];
      objectWords += 1;
      index += 1;
    }
    const connector = tokens[index];
    const connects =
      isWord(connector, CONNECTORS) || (connector?.kind === "pause" && connector.mark === ":");
    if (!connects) return [];
    index += 1;
  }
  const spans: string[] = [];
  while (tokens[index]?.kind === "code") {
    spans.push((tokens[index] as { text: string }).text);
    index += 1;
    while (tokens[index]?.kind === "pause" || isWord(tokens[index], LIST_SEPARATORS)) index += 1;
  }
  return spans;
}

function plainRunAt(
  tokens: readonly SentenceToken[],
  start: number,
  words: readonly string[],
): boolean {
  const run = tokens.slice(start, start + words.length);
  return (
    run.length === words.length &&
    run.every((token, index) => token.kind === "word" && token.text === words[index])
  );
}

/** `run npm test` as plain words: exactly the command's words, then the end or a clause boundary. */
function governsPlainWords(
  tokens: readonly SentenceToken[],
  verbIndex: number,
  words: readonly string[],
): boolean {
  if (!plainRunAt(tokens, verbIndex + 1, words)) return false;
  const after = tokens[verbIndex + 1 + words.length];
  return after === undefined || after.kind === "pause" || isWord(after, PLAIN_FOLLOWERS);
}

/** Negated: a negation after the verb, or one before it that no "but" / "instead" overrides. */
function negatedAt(tokens: readonly SentenceToken[], verbIndex: number): boolean {
  if (tokens.slice(verbIndex + 1).some(isNegation)) return true;
  for (let index = verbIndex - 1; index >= 0; index -= 1) {
    const token = tokens[index] as SentenceToken;
    if (isWord(token, CONTRASTS)) return false;
    if (isNegation(token)) return true;
  }
  return false;
}

function speaksHypothetically(sentence: TypedSentence): boolean {
  const first = sentence.tokens.find((token) => token.kind === "word");
  return (
    sentence.question ||
    isWord(first, INTERROGATIVES) ||
    sentence.tokens.some((token) => isWord(token, HYPOTHETICALS))
  );
}

function requestsIn(sentence: TypedSentence, words: readonly string[]): boolean {
  if (speaksHypothetically(sentence)) return false;
  const { tokens } = sentence;
  return tokens.some((token, index) => {
    if (!isWord(token, RUN_VERBS) || !startsClause(tokens, index) || negatedAt(tokens, index)) {
      return false;
    }
    const named = governedCode(tokens, index).some((code) => codeNames(code, words));
    return named || governsPlainWords(tokens, index, words);
  });
}

function mentions(sentence: TypedSentence, words: readonly string[]): boolean {
  return sentence.tokens.some(
    (token, index) =>
      (token.kind === "code" && codeNames(token.text, words)) ||
      plainRunAt(sentence.tokens, index, words),
  );
}

/**
 * "Actually, don't.", "No, never do that", "never run `x`": a negation that is short, refers
 * back, or names the command again withdraws the request made before it.
 */
function withdraws(sentence: TypedSentence, words: readonly string[]): boolean {
  const sentenceWords = sentence.tokens.filter((token) => token.kind === "word");
  if (!sentenceWords.some(isNegation)) return false;
  return (
    sentenceWords.length <= 3 ||
    sentenceWords.some((token) => isWord(token, BACK_REFERENCES)) ||
    mentions(sentence, words)
  );
}

/** Whether `userText` asks for exactly the plain command `words` to be run. */
export function checkCommandRequest(
  words: readonly string[],
  userText: string,
): CommandRequestCheck {
  const sentences = typedSentences(userText.replace(REMINDERS, "please"));
  let requested = false;
  for (const sentence of sentences) {
    if (requested && withdraws(sentence, words)) {
      return { requested: false, reason: "the user took the request back" };
    }
    if (requestsIn(sentence, words)) requested = true;
  }
  if (requested) return { requested: true };
  return {
    requested: false,
    reason:
      "the user did not ask for exactly this command to be run in this turn (a command in a question, a negation, a warning, a quotation or pasted text is not a request)",
  };
}
