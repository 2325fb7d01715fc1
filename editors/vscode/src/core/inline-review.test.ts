import { describe, expect, it } from "vitest";
import {
  acceptDeletion,
  diffLines,
  layoutReview,
  PendingHunks,
  rejectDeletion,
  type Deletion,
  type ReviewHunk,
} from "./inline-review.ts";

/** `text` with the hunk's deletion applied, as the glue writes it into the document. */
function applyDeletion(text: string, deletion: Deletion): string {
  return text.slice(0, deletion.start) + text.slice(deletion.end);
}

/** Settles every hunk of `text` (last first, as the glue does), each by `choose`. */
function settleAll(
  text: string,
  hunks: readonly ReviewHunk[],
  choose: (hunk: ReviewHunk) => Deletion,
): string {
  return [...hunks]
    .sort((first, second) => second.start - first.start)
    .reduce((current, hunk) => applyDeletion(current, choose(hunk)), text);
}

const ORIGINAL =
  "function sum(items) {\n  let total = 0;\n  for (const item of items) total += item;\n  return total;\n}\n";
const PROPOSAL =
  "function sum(items) {\n  let total = 0;\n  for (const item of items) total += Number(item);\n  return total;\n}\n// done\n";

describe("inline review", () => {
  it("diffs whole lines into unchanged text and hunks", () => {
    expect(diffLines(ORIGINAL, PROPOSAL)).toEqual([
      "function sum(items) {\n",
      "  let total = 0;\n",
      {
        removed: "  for (const item of items) total += item;\n",
        added: "  for (const item of items) total += Number(item);\n",
      },
      "  return total;\n",
      "}\n",
      { removed: "", added: "// done\n" },
    ]);
  });

  it("lays out deleted lines before added ones; Accept all gives the proposal, Reject all the original", () => {
    const layout = layoutReview(ORIGINAL, PROPOSAL);
    expect(layout.hunks).toHaveLength(2);
    const first = layout.hunks[0]!;
    expect(layout.text.slice(first.start, first.removedEnd)).toBe(
      "  for (const item of items) total += item;\n",
    );
    expect(layout.text.slice(first.removedEnd, first.end)).toBe(
      "  for (const item of items) total += Number(item);\n",
    );
    expect(settleAll(layout.text, layout.hunks, acceptDeletion)).toBe(PROPOSAL);
    expect(settleAll(layout.text, layout.hunks, rejectDeletion)).toBe(ORIGINAL);
  });

  it("accepts one hunk and rejects the other", () => {
    const layout = layoutReview(ORIGINAL, PROPOSAL);
    const [first, second] = layout.hunks;
    const text = applyDeletion(
      applyDeletion(layout.text, rejectDeletion(second!)),
      acceptDeletion(first!),
    );
    expect(text).toBe(ORIGINAL.replace("total += item", "total += Number(item)"));
  });

  it("handles a last line without a newline (the file's end, or a single-line selection)", () => {
    for (const [original, proposal] of [
      ["a\nb", "a\nc"],
      ["a", "a\nb"],
      ["a\nb", "a\n"],
      ["x", "y\nz"],
      ["", "new\n"],
    ] as const) {
      const layout = layoutReview(original, proposal);
      expect(settleAll(layout.text, layout.hunks, acceptDeletion)).toBe(proposal);
      expect(settleAll(layout.text, layout.hunks, rejectDeletion)).toBe(original);
    }
  });

  it("moves pending hunks with edits elsewhere and keeps text typed into added lines", () => {
    const layout = layoutReview(ORIGINAL, PROPOSAL);
    const prefix = "// header\n";
    let text = prefix + layout.text;
    const pending = new PendingHunks(layout, prefix.length);
    // A line typed above the review moves both hunks.
    text = "import x;\n" + text;
    pending.apply([{ rangeOffset: 0, rangeLength: 0, text: "import x;\n" }]);
    // A word typed into the first hunk's added line: Accept keeps it.
    const first = pending.hunks[0]!;
    const at = text.indexOf("Number(item)") + "Number(item)".length;
    expect(at).toBeGreaterThan(first.removedEnd);
    text = text.slice(0, at) + " | 0" + text.slice(at);
    pending.apply([{ rangeOffset: at, rangeLength: 0, text: " | 0" }]);
    expect(pending.size).toBe(2);
    const settled = settleAll(text, pending.takeAll(), acceptDeletion);
    expect(settled).toBe(
      "import x;\n" + prefix + PROPOSAL.replace("Number(item)", "Number(item) | 0"),
    );
  });

  it("settles a hunk whose deleted lines the user changed, and one undone as a whole", () => {
    const layout = layoutReview(ORIGINAL, PROPOSAL);
    const pending = new PendingHunks(layout, 0);
    const first = pending.hunks[0]!;
    pending.apply([{ rangeOffset: first.start + 2, rangeLength: 3, text: "" }]);
    expect(pending.hunks.map((hunk) => hunk.id)).toEqual([layout.hunks[1]!.id]);
    // Undo of the whole review: one change over everything.
    pending.apply([{ rangeOffset: 0, rangeLength: layout.text.length - 3, text: ORIGINAL }]);
    expect(pending.size).toBe(0);
  });

  it("takes a hunk out before it is written, so its own edit does not move the others wrongly", () => {
    const layout = layoutReview(ORIGINAL, PROPOSAL);
    const pending = new PendingHunks(layout, 0);
    const first = pending.take(layout.hunks[0]!.id)!;
    const deletion = acceptDeletion(first);
    const text = applyDeletion(layout.text, deletion);
    pending.apply([
      { rangeOffset: deletion.start, rangeLength: deletion.end - deletion.start, text: "" },
    ]);
    const second = pending.hunks[0]!;
    expect(text.slice(second.removedEnd, second.end)).toBe("// done\n");
    expect(pending.take(first.id)).toBeUndefined();
  });

  it("finds the hunk under the cursor and the next and previous ones, wrapping around", () => {
    const layout = layoutReview(ORIGINAL, PROPOSAL);
    const pending = new PendingHunks(layout, 0);
    const [first, second] = pending.hunks;
    const length = layout.text.length;
    // On the first hunk's deleted line, on its added line, and on the unchanged line after it.
    expect(pending.at(first!.start, length)?.id).toBe(first!.id);
    expect(pending.at(first!.removedEnd + 3, length)?.id).toBe(first!.id);
    expect(pending.at(first!.end, length)).toBeUndefined();
    expect(pending.at(0, length)).toBeUndefined();
    // The second hunk is the file's last line: the end of the document is in it.
    expect(second!.end).toBe(length);
    expect(pending.at(length, length)?.id).toBe(second!.id);

    expect(pending.next(0)?.id).toBe(first!.id);
    expect(pending.next(first!.removedEnd)?.id).toBe(second!.id);
    expect(pending.next(second!.start)?.id).toBe(first!.id);
    expect(pending.previous(second!.removedEnd, length)?.id).toBe(first!.id);
    expect(pending.previous(first!.removedEnd, length)?.id).toBe(second!.id);
    expect(pending.previous(0, length)?.id).toBe(second!.id);
    pending.takeAll();
    expect(pending.next(0)).toBeUndefined();
    expect(pending.at(0, length)).toBeUndefined();
  });
});
