// What a finished quick edit leads to: a proposal to accept or reject, nothing (the rewrite changed
// nothing or was empty), or a failure to show. Apply is only ever offered for a real change.
import { finishedProposal, proposalAfterStop } from "./streaming-proposal.ts";

export type QuickEditEnd =
  /** The stream ended normally. */
  | { kind: "finished" }
  /** The user pressed Esc: what streamed so far is kept, with the original's tail. */
  | { kind: "stopped" }
  | { kind: "failed"; error: unknown };

export type QuickEditOutcome =
  | { kind: "offer"; text: string }
  | { kind: "unchanged"; message: string }
  | { kind: "failed"; error: unknown };

export function decideQuickEditOutcome(
  original: string,
  streamed: string,
  end: QuickEditEnd,
): QuickEditOutcome {
  if (end.kind === "failed") return { kind: "failed", error: end.error };
  if (end.kind === "stopped") {
    const text = proposalAfterStop(original, streamed);
    if (text === original)
      return { kind: "unchanged", message: "Stopped before Spark rewrote a whole line." };
    return { kind: "offer", text };
  }
  // An empty reply would delete the selection: that is a model failing, not an edit.
  if (streamed.trim() === "")
    return { kind: "unchanged", message: "Spark's reply was empty; the selection is unchanged." };
  const text = finishedProposal(original, streamed);
  if (text === original)
    return { kind: "unchanged", message: "Spark left the selection as it was." };
  return { kind: "offer", text };
}
