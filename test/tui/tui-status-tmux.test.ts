// /status in a real terminal (issue 37, as Codex's): after a turn it names the session, the
// workspace, the model and route, the sandbox, the approval policy and the context in use.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-status");
let spark: SparkPane;

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) /status", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: "Hello from the script." }]);
    spark.start("status", { columns: 120, rows: 50 });
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("shows the session, workspace, model and route, sandbox, approvals and context", async () => {
    const started = await server.waitForPane("status", "started", (pane) =>
      /new session [0-9a-f]{8}/.test(pane),
    );
    const shortId = /new session ([0-9a-f]{8})/.exec(started)?.[1] ?? "";
    spark.keys("status", "hello", "Enter");
    await server.waitForPane("status", "answered", (pane) =>
      pane.includes("Hello from the script."),
    );
    spark.keys("status", "/status", "Enter");
    const shown = await server.waitForPane("status", "/status", (pane) =>
      /^\s*Context\s+\S+/m.test(pane),
    );
    expect(shown).toMatch(new RegExp(`Session\\s+${shortId}[0-9a-f-]*`));
    expect(shown).toContain(`Workspace  ${spark.workspace.root}`);
    expect(shown).toMatch(/Model\s+script:\S*turns\.jsonl \(in this process\)/);
    expect(shown).toMatch(/Sandbox\s+(bubblewrap \(writes: workspace only, network: off\)|none)/);
    expect(shown).toMatch(/Approval\s+asks before a command/);
    expect(shown).toMatch(/Context\s+[\d.]+k? of [\d.]+k? tokens \(\d+%\)/);
  });
});
