// Keys typed in spark's first moment, before its TypeScript has loaded (issue 37): the launcher
// turns echo off at once, so nothing shows above the header, and the keys reach the prompt.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-early-keys");
let spark: SparkPane;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) keys typed while it loads", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: "unused" }]);
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("echoes nothing above the header and puts the keys in the input", async () => {
    spark.start("early", { columns: 100, rows: 30 });
    // Node is up by now (the launcher ran); loading the CLI and React takes a second or more.
    await new Promise((resolve) => setTimeout(resolve, 250));
    spark.keys("early", "-l", "typed early");
    const pane = await server.waitForPane(
      "early",
      "started",
      (text) => /new session [0-9a-f]{8}/.test(text) && text.includes("typed early"),
    );
    const aboveHeader = pane.split("✻ Spark")[0] ?? "";
    expect(aboveHeader).not.toContain("typed");
    expect(pane).toMatch(/│ › typed early\s*│/);
  });
});
