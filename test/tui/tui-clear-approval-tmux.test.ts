// /clear and a command approval in a real terminal (issue 37): /clear leaves the input box, its
// hints and the status line on screen at once (it left a blank terminal until a key was pressed),
// and the approval's `a` says what it does: this exact command, not every command.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-clear");
let spark: SparkPane;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) /clear and approvals", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [
      { text: "Before the clear." },
      {
        text: "Running it.",
        toolCalls: [{ name: "run_command", arguments: { command: "touch marker.txt" } }],
      },
      { text: "It ran." },
    ]);
    spark.start("clear", { columns: 110, rows: 30 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("/clear redraws the input, hints and status line at once", async () => {
    await server.waitForPane("clear", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    spark.keys("clear", "first", "Enter");
    await server.waitForPane("clear", "answered", (pane) => pane.includes("Before the clear."));
    spark.keys("clear", "/clear", "Enter");
    const cleared = await server.waitForPane(
      "clear",
      "cleared",
      (pane) => !pane.includes("Before the clear.") && pane.includes("idle ·"),
    );
    expect(cleared).toMatch(/^│ › +│$/m);
    expect(cleared).toContain("Enter send · / commands");
    expect(cleared).not.toContain("new session");
  });

  it("says that `a` allows this exact command, not every command", async () => {
    spark.keys("clear", "run it", "Enter");
    const asked = await server.waitForPane("clear", "approval", (pane) =>
      pane.includes("wants to run a command"),
    );
    expect(asked).toContain(
      "a run it, and this exact command again without asking in this session",
    );
    expect(asked).not.toMatch(/always allow\s+commands/);
    spark.keys("clear", "a");
    const answered = await server.waitForPane("clear", "approved", (pane) =>
      pane.includes("It ran."),
    );
    expect(answered).toContain("approved, and this exact command from now on in this session");
  });
});
