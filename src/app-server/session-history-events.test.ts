import { mkdtempSync, rmSync, statSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readHistoryEvents } from "./session-history-events.ts";

let folder: string | undefined;
afterEach(() => {
  if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
});

const line = (record: object): string => `${JSON.stringify({ ...record, at: "2026-01-01" })}\n`;

describe("readHistoryEvents", () => {
  it("gives the log's events up to a length, deltas joined, tool output shortened", async () => {
    folder = mkdtempSync(path.join(tmpdir(), "spark-history-"));
    const log = path.join(folder, "s.jsonl");
    const output = ["line 1", ...Array.from({ length: 40 }, (_, i) => `row ${i}`), "[exit code 0]"];
    writeFileSync(
      log,
      [
        line({ type: "session", version: 1, id: "s", startedAt: "x", cwd: "/repo" }),
        line({ type: "message", message: { role: "user", content: "[note]\n\nhi" } }),
        line({ type: "turn-started", turnId: "t", text: "hi" }),
        line({ type: "text-delta", turnId: "t", text: "Hel" }),
        line({ type: "text-delta", turnId: "t", text: "lo" }),
        line({
          type: "tool-call",
          turnId: "t",
          callId: "c",
          name: "run_command",
          arguments: "{}",
          summary: "run_command ls",
        }),
        line({
          type: "tool-result",
          turnId: "t",
          callId: "c",
          name: "run_command",
          output: output.join("\n"),
          isError: false,
          durationMs: 3,
        }),
        line({ type: "undo-entry", entry: {} }),
      ].join(""),
    );
    const length = statSync(log).size;
    // Written after the client attached: the live events carry it, not the history.
    appendFileSync(log, line({ type: "turn-started", turnId: "t2", text: "later" }));

    const events = await readHistoryEvents(log, length);
    expect(events.map((event) => event.type)).toEqual([
      "turn-started",
      "text-delta",
      "tool-call",
      "tool-result",
    ]);
    expect(events[1]).toEqual({ type: "text-delta", turnId: "t", text: "Hello" });
    const result = events[3];
    expect(result?.type === "tool-result" && result.output.split("\n")).toEqual([
      "line 1",
      "… 33 lines",
      ...output.slice(-8),
    ]);
  });
});
