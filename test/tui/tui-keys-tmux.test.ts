// Keys sent in one burst, in a real terminal (issue 37): each applies to the state the key before
// it left, in the /model picker and the command list as in the input line; ↑ walks the history
// past a slash command instead of sticking on it.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-keys");
const MODELS = ["model-a", "model-b", "model-c", "model-d", "model-e"];
let spark: SparkPane;

/** The input box's line: what is typed in it. */
const inputLine = (pane: string): string | undefined =>
  /│ › (.*?)\s*│\n╰/.exec(pane.trimEnd())?.[1];

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) keys in a burst", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [
      { text: "Answer to hello.", expect: { lastMessageIncludes: "hello world" } },
      { text: "Answer one." },
      { text: "Answer two." },
    ]);
    // Five models to pick from, all the same script.
    writeFileSync(
      path.join(spark.sparkHome, "config.toml"),
      MODELS.map(
        (name) => `[models.${name}]\nengine = "script"\npath = ${JSON.stringify(spark.script)}\n`,
      ).join("\n"),
    );
    spark.start("keys", { columns: 100, rows: 50 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("picks the fourth model with /model Enter Down Down Down Enter in one burst", async () => {
    await server.waitForPane("keys", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    spark.keys("keys", "/model", "Enter");
    const picker = await server.waitForPane("keys", "picker", (pane) =>
      pane.includes("↑/↓ move · Enter pick"),
    );
    // Each entry: "│   ▸ name engine[, default]", in the picker's order.
    const listed = [...picker.matchAll(/^│\s+(?:▸\s+)?(\S+) script/gm)].map((match) => match[1]);
    expect(listed?.length).toBeGreaterThanOrEqual(4);
    // The picker open: ↓↓↓ Enter at once.
    spark.keys("keys", "Down", "Down", "Down", "Enter");
    await server.waitForPane("keys", "picked from the open picker", (pane) =>
      pane.includes(`The next turn uses ${listed?.[3]}.`),
    );
    // And the command, its picker and the keys in one burst.
    spark.keys("keys", "/model", "Enter", "Down", "Down", "Enter");
    const picked = await server.waitForPane(
      "keys",
      "picked in one burst",
      (pane) => (pane.match(/The next turn uses /g)?.length ?? 0) >= 2,
    );
    expect(picked).toContain(`The next turn uses ${listed?.[2]}.`);
  });

  it("types over a command list cleared with Ctrl+U in the same burst", async () => {
    spark.keys("keys", "/di");
    await server.waitForPane("keys", "command list", (pane) => /^\s*▸ \/diff/m.test(pane));
    // The list is on screen; the burst clears the line and types a message over it.
    spark.keys("keys", "C-u", "hello world", "Enter");
    const sent = await server.waitForPane("keys", "hello world sent", (pane) =>
      pane.includes("Answer to hello."),
    );
    expect(sent).toContain("› hello world");
    expect(sent).not.toContain("No edits");
  });

  it("walks ↑ through the history past a slash command", async () => {
    spark.keys("keys", "first message", "Enter");
    await server.waitForPane("keys", "first", (pane) => pane.includes("Answer one."));
    spark.keys("keys", "second message", "Enter");
    await server.waitForPane("keys", "second", (pane) => pane.includes("Answer two."));
    spark.keys("keys", "/diff", "Enter");
    await server.waitForPane(
      "keys",
      "diff",
      (pane) => inputLine(pane) === "" && /edit/i.test(pane),
    );
    const expected = ["/diff", "second message", "first message", "hello world"];
    for (const [index, text] of expected.entries()) {
      spark.keys("keys", "Up");
      await server.waitForPane(
        "keys",
        `↑ ${index + 1}: ${text}`,
        (pane) => inputLine(pane) === text,
      );
    }
  });
});
