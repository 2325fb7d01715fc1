// Switching sessions in one spark process, in a real terminal (issue 37): `/resume` to a session
// this process already had open shows that session's header and history, and `/new` does not
// print the previous transcript into the terminal a second time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { occurrences, sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-switch");
let spark: SparkPane;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) switching sessions", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: "The first session's answer." }]);
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("/new starts clean and /resume to the first session shows its history", async () => {
    spark.start("switch");
    const started = await server.waitForPane("switch", "started", (pane) =>
      /new session [0-9a-f]{8}/.test(pane),
    );
    const firstId = /new session ([0-9a-f]{8})/.exec(started)?.[1];
    expect(firstId).toBeDefined();

    spark.keys("switch", "hello first", "Enter");
    await server.waitForPane("switch", "first answer", (pane) =>
      pane.includes("The first session's answer."),
    );

    spark.keys("switch", "/new", "Enter");
    const renewed = await server.waitForPane(
      "switch",
      "after /new",
      (pane) => occurrences(pane, /✻ Spark/) >= 2 && pane.includes("idle ·"),
    );
    // The first session's transcript is on screen (or in the scrollback) once, not reprinted.
    expect(occurrences(renewed, /The first session's answer\./)).toBe(1);
    expect(occurrences(renewed, /› hello first/)).toBe(1);
    expect(occurrences(renewed, new RegExp(`session ${firstId}`))).toBe(1);

    spark.keys("switch", `/resume ${firstId}`, "Enter");
    const resumed = await server.waitForPane("switch", "after /resume", (pane) =>
      new RegExp(`resumed session ${firstId}`).test(pane),
    );
    // Below the resumed header: the first session's message and answer, drawn again.
    const afterHeader = resumed.split(`resumed session ${firstId}`)[1] ?? "";
    expect(afterHeader).toContain("hello first");
    expect(afterHeader).toContain("The first session's answer.");
    expect(afterHeader).not.toMatch(/new session/);
    expect(afterHeader).toMatch(new RegExp(`idle · .*session ${firstId?.slice(0, 4)}`));
  });
});
