// A long command's output in a real terminal (issue 37): the transcript shows its last lines and
// says how many came before; Ctrl+T (as Codex's) and /output show every line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { occurrences, sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-output");
let spark: SparkPane;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) a command's whole output", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [
      {
        text: "Counting.",
        toolCalls: [{ name: "run_command", arguments: { command: "seq 101 130" } }],
      },
      { text: "Counted to 130." },
    ]);
    spark.start("output", { columns: 100, rows: 60 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("shows the last lines, then all of them on Ctrl+T and /output", async () => {
    await server.waitForPane("output", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    spark.keys("output", "run seq 101 130", "Enter");
    const ran = await server.waitForPane(
      "output",
      "ran or asked",
      (pane) => pane.includes("Counted to 130.") || pane.includes("wants to run a command"),
    );
    // Without a sandbox here every command is asked for.
    if (!ran.includes("Counted to 130.")) spark.keys("output", "y");
    const finished = await server.waitForPane("output", "finished", (pane) =>
      pane.includes("Counted to 130."),
    );
    expect(finished).toContain("… 26 earlier lines · Ctrl+T shows all");
    expect(finished).toMatch(/^ {2}130$/m);
    expect(finished).not.toMatch(/^ {2}101$/m);

    spark.keys("output", "C-t");
    const expanded = await server.waitForPane("output", "Ctrl+T", (pane) =>
      pane.includes("Output of run_command seq 101 130"),
    );
    const shown = expanded.split("Output of run_command seq 101 130")[1] ?? "";
    for (let value = 101; value <= 130; value += 1)
      expect(shown).toMatch(new RegExp(`^ {2}${value}$`, "m"));

    spark.keys("output", "/output", "Enter");
    const again = await server.waitForPane(
      "output",
      "/output",
      (pane) => occurrences(pane, /Output of run_command seq 101 130/) === 2,
    );
    expect(occurrences(again, /^ {2}101$/m)).toBe(2);
  });
});
