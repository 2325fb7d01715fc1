// Launching spark and leaving without a message, in a real terminal (issue 37): no empty session
// is saved (each launch left one, listed as "(no messages)" in /resume and the browser's sidebar),
// and no resume hint names it; a session with a message is kept and named.
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sparkPane, type SparkPane } from "./support/spark-in-tmux.ts";
import { hasTmux, tmuxServer } from "./support/tmux-pane.ts";

const inCi = process.env.CI === "true";
const server = tmuxServer("spark-tui-empty");
let spark: SparkPane;

const savedLogs = (): string[] =>
  readdirSync(spark.workspace.sessionsDirectory).filter((name) => name.endsWith(".jsonl"));

async function quit(target: string): Promise<string> {
  spark.keys(target, "C-c");
  await server.waitForPane(target, "first Ctrl+C", (pane) => pane.includes("Press Ctrl+C again"));
  spark.keys(target, "C-c");
  return server.waitForPane(target, "quit", (pane) => pane.includes("spark exited with 0"));
}

describe.skipIf(!hasTmux && !inCi)("spark (terminal UI) saving only sessions with messages", () => {
  beforeAll(() => {
    if (!hasTmux) throw new Error("tmux is missing and CI=true: .ci/run installs it.");
    spark = sparkPane(server, [{ text: "Kept." }]);
  });

  afterAll(() => {
    if (hasTmux) server.kill();
    spark?.workspace.remove();
  });

  it("saves nothing for a launch left without a message", async () => {
    spark.start("empty");
    await server.waitForPane("empty", "started", (pane) => /new session [0-9a-f]{8}/.test(pane));
    const left = await quit("empty");
    expect(left).not.toContain("Resume this session with");
    expect(savedLogs()).toEqual([]);
  });

  it("keeps the session with a message and drops the empty one /new left", async () => {
    spark.start("kept");
    const started = await server.waitForPane("kept", "started", (pane) =>
      /new session [0-9a-f]{8}/.test(pane),
    );
    const firstId = /new session ([0-9a-f]{8})/.exec(started)?.[1] ?? "";
    spark.keys("kept", "keep me", "Enter");
    await server.waitForPane("kept", "answered", (pane) => pane.includes("Kept."));
    spark.keys("kept", "/new", "Enter");
    await server.waitForPane(
      "kept",
      "new",
      (pane) => (pane.match(/new session/g)?.length ?? 0) === 2,
    );
    spark.keys("kept", `/resume ${firstId}`, "Enter");
    await server.waitForPane("kept", "resumed", (pane) =>
      pane.includes(`resumed session ${firstId}`),
    );
    const left = await quit("kept");
    expect(left).toContain(`Resume this session with: spark --session ${firstId}`);
    expect(savedLogs()).toEqual([expect.stringContaining(firstId)]);
  });
});
