// Smaller things a daily user saw in a real terminal (issue 37): ~~strike~~ was left raw and ##
// and ### headings looked alike; while a turn waited for its first token nothing said so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-small");
let spark: SparkPane;

const ESC = "\u001b";
/** The pane with its colours and attributes as escapes (capture-pane -e). */
const styledPane = (): string => server.run("capture-pane", "-p", "-e", "-J", "-t", "small");
/** The escapes in effect where `text` starts on the styled line holding it. */
const styleBefore = (styled: string, text: string): string => {
  const line = styled.split("\n").find((row) => row.includes(text)) ?? "";
  return line.slice(0, line.indexOf(text));
};

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) smaller items", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [
      { text: "## Second level\n### Third level\nUse ~~the old name~~ the new one." },
      { text: "Late answer.", delayMs: 3000 },
    ]);
    spark.start("small", { columns: 100, rows: 40 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("strikes ~~text~~ through and draws ## and ### differently", async () => {
    await server.waitForPane("small", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    spark.keys("small", "headings", "Enter");
    const pane = await server.waitForPane("small", "answered", (text) =>
      text.includes("the new one."),
    );
    expect(pane).toContain("Use the old name the new one.");
    expect(pane).not.toContain("~~");
    const styled = styledPane();
    // SGR 9 is strikethrough.
    expect(styleBefore(styled, "the old name")).toMatch(new RegExp(`${ESC}\\[(?:[0-9;]*;)?9m`));
    // ## in cyan, ### not (before, both were cyan and only an underline told them apart).
    expect(styleBefore(styled, "Second level")).toMatch(/\[(?:[0-9;]*;)?36m/);
    expect(styleBefore(styled, "Third level")).not.toMatch(/\[(?:[0-9;]*;)?36m/);
  });

  it("says it waits for the model until the first token", async () => {
    spark.keys("small", "slow one", "Enter");
    const waiting = await server.waitForPane("small", "waiting", (text) =>
      text.includes("⋯ waiting for the model"),
    );
    expect(waiting).not.toContain("Late answer.");
    const answered = await server.waitForPane(
      "small",
      "answered late",
      (text) => text.includes("Late answer.") && text.includes("idle ·"),
    );
    expect(answered).not.toContain("waiting for the model");
  });
});
