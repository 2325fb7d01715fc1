// One writer per saved session, with two spark processes in a real terminal (issue 37): TUI B
// `/resume`s the session TUI A has open and is refused with A's pid, staying in its own session
// (before, both appended to one log); once A crashed (SIGKILL, no cleanup), B takes it over.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-owner");
let spark: SparkPane;

const sessionIdIn = (pane: string): string | undefined =>
  /new session ([0-9a-f]{8})/.exec(pane)?.[1];

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) owning its session", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: "An answer." }, { text: "Another answer." }]);
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("refuses a session another spark has open, naming it, and takes over a crashed one", async () => {
    spark.start("a");
    const startedA = await server.waitForPane(
      "a",
      "A started",
      (pane) => sessionIdIn(pane) !== undefined,
    );
    const idA = sessionIdIn(startedA) ?? "";
    spark.keys("a", "from A", "Enter");
    await server.waitForPane("a", "A answered", (pane) => pane.includes("An answer."));

    spark.start("b");
    const startedB = await server.waitForPane(
      "b",
      "B started",
      (pane) => sessionIdIn(pane) !== undefined,
    );
    const idB = sessionIdIn(startedB) ?? "";
    spark.keys("b", `/resume ${idA}`, "Enter");
    const refused = await server.waitForPane("b", "B refused", (pane) =>
      pane.includes("was not opened"),
    );
    expect(refused).toContain(`Session ${idA} is open in another spark process (pid `);
    expect(refused).toContain(`Still in session ${idB}`);
    expect(refused).not.toContain(`resumed session ${idA}`);
    const ownerPid = Number(/another spark process \(pid (\d+)/.exec(refused)?.[1]);
    expect(readFileSync(`/proc/${ownerPid}/cmdline`, "utf8")).toContain("spark.js");
    // Still B's own session, drawn once, and it works.
    expect(refused.match(new RegExp(`new session ${idB}`, "g"))?.length).toBe(1);
    spark.keys("b", "from B", "Enter");
    const answeredB = await server.waitForPane("b", "B answered", (pane) =>
      pane.includes("An answer."),
    );
    expect(answeredB).toMatch(new RegExp(`session ${idB.slice(0, 4)}`));

    // A crashes: no exit handler runs, its lock stays behind naming a dead pid.
    process.kill(ownerPid, "SIGKILL");
    await server.waitForPane("a", "A killed", (pane) => pane.includes("spark exited with"));
    spark.keys("b", `/resume ${idA}`, "Enter");
    const taken = await server.waitForPane(
      "b",
      "B took over",
      (pane) =>
        pane.includes(`resumed session ${idA}`) &&
        /idle ·/.test(pane.split(`resumed session ${idA}`)[1] ?? ""),
    );
    const afterHeader = taken.split(`resumed session ${idA}`)[1] ?? "";
    expect(afterHeader).toContain("› from A");
    expect(afterHeader).toContain("An answer.");
  });
});
