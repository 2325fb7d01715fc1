// Resizing the terminal while an answer streams, in a real terminal (issue 37): narrower, then
// back and forth faster than the screen settles, the pane and its scrollback hold each line once,
// with one input box. tmux keeps the cursor's row when a shrink reflows the screen, pushing the
// rows it added into the scrollback, where no erase reaches: before the repaint
// (hooks/use-resize-repaint.ts), stale borders, steer boxes and copies of streamed lines stayed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { occurrences, sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-resize");
let spark: SparkPane;

const FIRST_LINE = "The first line of a long answer that streams slowly.";
const SHORT_LINES = Array.from({ length: 150 }, (_, index) => `line${index} alpha beta gamma`);
const WORDS = Array.from({ length: 60 }, (_, index) => `word${index}`).join(" ");

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) resized while streaming", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    const text = [FIRST_LINE, ...SHORT_LINES, WORDS, "The end."].join("\n");
    spark = sparkPane(server, [{ text, delayMs: 4 }]);
    spark.start("resize", { columns: 120, rows: 40 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("leaves each line once after the width changes back and forth mid-stream", async () => {
    await server.waitForPane("resize", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    spark.keys("resize", "tell me a lot", "Enter");
    await server.waitForPane("resize", "streaming", (pane) => pane.includes("line3 "));
    server.run("resize-window", "-t", "resize", "-x", "70");
    await server.waitForPane("resize", "narrow", (pane) => /^╰─{68}╯$/m.test(pane));
    // Faster than the repaint's settling time: only the last width is drawn again.
    for (const columns of [120, 70, 120, 70, 120, 70, 120, 70, 120]) {
      server.run("resize-window", "-t", "resize", "-x", String(columns));
      await sleep(80);
    }
    const done = await server.waitForPane(
      "resize",
      "finished, wide again",
      (pane) => pane.includes("The end.") && pane.includes("idle ·") && /^╰─{118}╯$/m.test(pane),
    );
    expect(occurrences(done, new RegExp(FIRST_LINE.replace(".", "\\.")))).toBe(1);
    expect(occurrences(done, /› tell me a lot/)).toBe(1);
    for (const line of SHORT_LINES) expect(occurrences(done, new RegExp(`^${line}$`, "m"))).toBe(1);
    // One input box (its top border), one status line, no broken borders left by the narrow frame.
    expect(occurrences(done, /^╭─+╮$/m)).toBe(2); // the session header's and the input's
    expect(occurrences(done, /idle ·/)).toBe(1);
    expect(done).not.toMatch(/^─+╮?$/m);
    expect(done).not.toMatch(/steer ›/);
    expect(occurrences(done, /word59/)).toBe(1);
  });
});
