// Resizing the terminal while an answer streams, in a real terminal (issue 37): narrower then
// wider again, the pane and its scrollback hold each line once, with one input box (before, the
// live region's rows re-wrapped by the terminal were not all erased: stale borders and copies of
// the answer's first line stayed above the new frame).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { occurrences, sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-resize");
let spark: SparkPane;

const FIRST_LINE = "The first line of a long answer that streams slowly.";
const WORDS = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) resized while streaming", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: `${FIRST_LINE}\n${WORDS}\nThe end.`, delayMs: 40 }]);
    spark.start("resize", { columns: 120, rows: 40 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("leaves each line once after shrinking and widening mid-stream", async () => {
    await server.waitForPane("resize", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    spark.keys("resize", "tell me a lot", "Enter");
    await server.waitForPane("resize", "streaming", (pane) => pane.includes("word3"));
    server.run("resize-window", "-t", "resize", "-x", "70");
    await server.waitForPane("resize", "narrow", (pane) => /^╰─{68}╯$/m.test(pane));
    server.run("resize-window", "-t", "resize", "-x", "120");
    const done = await server.waitForPane(
      "resize",
      "finished, wide again",
      (pane) => pane.includes("The end.") && pane.includes("idle ·") && /^╰─{118}╯$/m.test(pane),
    );
    expect(occurrences(done, new RegExp(FIRST_LINE.replace(".", "\\.")))).toBe(1);
    expect(occurrences(done, /› tell me a lot/)).toBe(1);
    // One input box (its top border), one status line, no broken borders left by the narrow frame.
    expect(occurrences(done, /^╭─+╮$/m)).toBe(2); // the session header's and the input's
    expect(occurrences(done, /idle ·/)).toBe(1);
    expect(done).not.toMatch(/^─+╮?$/m);
    expect(occurrences(done, /word59/)).toBe(1);
  });
});
