// Reuse of an earlier completion while the user types what it predicted: with prefix "fo" and
// ghost text "o(bar)", typing "o" leaves "(bar)" to show without asking the server again.

export interface PredictedCompletion {
  documentId: string;
  prefix: string;
  suffix: string;
  /** The completion's text so far (the whole text once its stream ended). */
  text: string;
}

export type ReuseVerdict =
  | { kind: "reuse"; remaining: string }
  /** Still compatible, but the typed text runs past what has streamed so far: wait for more. */
  | { kind: "pending" }
  | { kind: "unrelated" };

export function judgeReuse(
  earlier: PredictedCompletion,
  current: { documentId: string; prefix: string; suffix: string },
  earlierFinished: boolean,
): ReuseVerdict {
  if (earlier.documentId !== current.documentId || earlier.suffix !== current.suffix)
    return { kind: "unrelated" };
  if (!current.prefix.startsWith(earlier.prefix)) return { kind: "unrelated" };
  const typed = current.prefix.slice(earlier.prefix.length);
  if (earlier.text.startsWith(typed)) {
    const remaining = earlier.text.slice(typed.length);
    if (remaining !== "") return { kind: "reuse", remaining };
    return earlierFinished ? { kind: "unrelated" } : { kind: "pending" };
  }
  if (!earlierFinished && typed.startsWith(earlier.text)) return { kind: "pending" };
  return { kind: "unrelated" };
}
