// `spark --session <id>` without a command sandbox, in a real terminal (issue 37): the missing
// sandbox is said once (the notice spark prints at start, and the resumed session's own start
// said it again), and the saved conversation is drawn below the header.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { occurrences, sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-notices");
let spark: SparkPane;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) resuming without a sandbox", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: "Saved answer." }]);
    writeFileSync(path.join(spark.sparkHome, "config.toml"), '[sandbox]\nmode = "off"\n');
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("says the command sandbox is off once", async () => {
    spark.start("first");
    const started = await server.waitForPane("first", "started", (pane) =>
      /new session [0-9a-f]{8}/.test(pane),
    );
    expect(occurrences(started, /command sandbox: /)).toBe(1);
    const id = /new session ([0-9a-f]{8})/.exec(started)?.[1] ?? "";
    spark.keys("first", "remember me", "Enter");
    await server.waitForPane("first", "answered", (pane) => pane.includes("Saved answer."));
    spark.keys("first", "C-c");
    spark.keys("first", "C-c");
    await server.waitForPane("first", "quit", (pane) => pane.includes("spark exited with 0"));

    spark.start("again", { extra: `--session ${id}` });
    const resumed = await server.waitForPane(
      "again",
      "resumed",
      (pane) => pane.includes(`resumed session ${id}`) && pane.includes("idle ·"),
    );
    expect(resumed).toContain("Saved answer.");
    expect(occurrences(resumed, /command sandbox: /)).toBe(1);
  });
});
