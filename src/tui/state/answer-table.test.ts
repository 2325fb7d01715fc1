import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../protocol/agent/session-events.ts";
import { cellPadding, dividerLine, layoutTable, tableWidth } from "./answer-table.ts";
import { fold } from "./session-view-test-support.ts";

const delta = (text: string): [SessionEvent, number] => [
  { type: "text-delta", turnId: "t1", text },
  1,
];

const answerLines = (state: ReturnType<typeof fold>) =>
  state.finished.flatMap((item) => (item.kind === "assistant" ? [[item.block, item.text]] : []));

describe("tables in a streamed answer", () => {
  it("holds a table's rows, in whatever deltas they come, and finishes them as one item", () => {
    const text = "Sizes:\n| name | size |\n|:--|--:|\n| a | 1 |\n| bb | 22 |\nAfter.\n";
    const state = fold([...(text.match(/.{1,5}/gs) ?? [])].map(delta));
    expect(answerLines(state)).toEqual([
      ["prose", "Sizes:"],
      ["table", "| name | size |\n|:--|--:|\n| a | 1 |\n| bb | 22 |"],
      ["prose", "After."],
    ]);
  });

  it("shows the rows held so far with the live line, and finishes them with the answer", () => {
    const live = fold([delta("| a | b |\n|---|---|\n| 1 | 2")]);
    expect(live.finished).toEqual([]);
    expect(live.live).toMatchObject({
      text: "| 1 | 2",
      heldTable: { block: "table", text: "| a | b |\n|---|---|" },
    });
    const ended = fold([
      delta("| a | b |\n|---|---|\n| 1 | 2"),
      [
        {
          type: "interrupted",
          turnId: "t1",
          reason: "interrupt",
          partialText: "",
          discardedQueue: [],
        },
        2,
      ],
    ]);
    expect(answerLines(ended)).toEqual([["table", "| a | b |\n|---|---|\n| 1 | 2"]]);
  });

  it("keeps pipes in code blocks and lone pipe lines as they are", () => {
    const state = fold([delta("```\n| a | b |\n```\n| not a table\nnext\n")]);
    expect(answerLines(state)).toEqual([
      ["fence", "```"],
      ["code", "| a | b |"],
      ["fence", "```"],
      ["table", "| not a table"],
      ["prose", "next"],
    ]);
    expect(layoutTable("| not a table")).toBeUndefined();
  });
});

describe("layoutTable", () => {
  it("makes each column as wide as its widest cell, marks taken off", () => {
    const layout = layoutTable("| **name** | size |\n|:-:|--:|\n| `a` | 1 |\n| wide one | 22 |");
    expect(layout?.widths).toEqual([8, 4]);
    expect(layout === undefined ? 0 : tableWidth(layout)).toBe(8 + 3 + 4);
    expect(dividerLine([3, 2])).toBe("────┼───");
    expect(cellPadding(1, 5, "center")).toEqual({ before: "  ", after: "  " });
    expect(cellPadding(2, 5, "right")).toEqual({ before: "   ", after: "" });
  });
});
