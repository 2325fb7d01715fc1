// The terminal UI against a fake agent server: attach, live streaming, tool calls, diffs,
// interrupts and errors, Markdown, and the status line (its keys are in app-keys.test.tsx).
import { describe, expect, it, vi } from "vitest";
import { startApp as start, useAppCleanup } from "../../test/support/tui-app-harness.tsx";

useAppCleanup();

const usage = { inputTokens: 900, cachedInputTokens: 640, outputTokens: 3 };
const timings = {
  totalMs: 9,
  modelMs: 8,
  toolMs: 0,
  timeToFirstTokenMs: 4,
  decodeMs: 4,
  decodeTokens: 3,
};

describe("the terminal UI", () => {
  it("attaches, streams the answer live, and shows tool calls, diffs, interrupts and errors", async () => {
    const { server, screen, attached } = start();
    await attached();
    expect(server.requests[0]).toEqual({
      method: "session/attach",
      params: { sessionId: "s1", lastSequence: 0 },
    });
    // The header names the workspace the agent works in (issue 27).
    await vi.waitFor(() => expect(screen()).toContain("✻ Spark  new session s1"));
    expect(screen()).toMatch(/workspace \/repo/);
    server.emit("s1", { type: "status-changed", status: "running" });
    server.emit("s1", { type: "turn-started", turnId: "t1", text: "rename greet" });
    server.emit("s1", { type: "text-delta", turnId: "t1", text: "Looking at " });
    server.emit("s1", { type: "text-delta", turnId: "t1", text: "the file" });
    await vi.waitFor(() => expect(screen()).toContain("● Looking at the file"));
    expect(screen()).toContain("› rename greet");
    expect(screen()).toContain("Esc interrupt");

    server.emit("s1", {
      type: "tool-call",
      turnId: "t1",
      callId: "c1",
      name: "edit",
      arguments: "{}",
      summary: "edit src/greet.ts",
    });
    server.emit("s1", {
      type: "edit-applied",
      turnId: "t1",
      callId: "c1",
      path: "src/greet.ts",
      kind: "update",
      unifiedDiff: "@@ -1 +1 @@\n-export const greeting = 1;\n+export const salutation = 1;\n",
      linesAdded: 1,
      linesRemoved: 1,
      undoEntryId: "u1",
    });
    server.emit("s1", { type: "text-delta", turnId: "t1", text: "Renamed, now chec" });
    server.emit("s1", {
      type: "interrupted",
      turnId: "t1",
      reason: "interrupt",
      partialText: "Renamed, now chec",
      discardedQueue: [],
    });
    server.emit("s1", {
      type: "error",
      error: {
        type: "error",
        code: "upstream_error",
        message: "The model went away.",
        retryable: true,
      },
    });
    server.emit("s1", {
      type: "turn-finished",
      turnId: "t1",
      reason: "interrupted",
      steps: 1,
      usage,
      timings,
    });
    server.emit("s1", { type: "status-changed", status: "idle" });
    await vi.waitFor(() => expect(screen()).toContain("The model went away. [upstream_error]"));
    const frame = screen();
    expect(frame).toContain("✓ edit src/greet.ts");
    expect(frame).toContain("Edited src/greet.ts +1 -1");
    expect(frame).toContain("+export const salutation = 1;");
    expect(frame).toContain("Renamed, now chec ⏹");
    expect(frame).toContain("⏹ interrupted");
    expect(frame).toContain("cached 640");
    expect(frame).toContain("Enter send");
  });

  it("renders an answer's Markdown and leaves long lines whole for the terminal to wrap (issue 27)", async () => {
    const { server, screen, attached } = start();
    await attached();
    const long = `A long line: ${"wrap me ".repeat(20).trim()} end.`; // 172 columns, the terminal 100
    const answer = [
      "## The plan",
      "Use **bold**, `inline code` and *emphasis*:",
      "- first item",
      "1. numbered",
      "> quoted",
      "```ts",
      'const greeting = "hi"; // say it',
      "```",
      long,
      "",
    ].join("\n");
    server.emit("s1", { type: "turn-started", turnId: "t1", text: "explain" });
    for (const piece of answer.match(/.{1,7}/gs) ?? [])
      server.emit("s1", { type: "text-delta", turnId: "t1", text: piece });
    await vi.waitFor(() => expect(screen()).toContain("end."));
    const frame = screen();
    expect(frame).toContain("● The plan");
    expect(frame).toContain("Use bold, inline code and emphasis:");
    expect(frame).toContain("• first item");
    expect(frame).toContain("1. numbered");
    expect(frame).toContain("│ quoted");
    expect(frame).toMatch(/^const greeting = "hi"; \/\/ say it$/m);
    expect(frame).not.toMatch(/```|\*\*|`inline|## /);
    expect(frame).toContain(long);
  });

  it("keeps a blank line that finishes alone in a frame (after a closing fence)", async () => {
    const { server, screen, attached } = start();
    await attached();
    const pause = () => new Promise((resolve) => setTimeout(resolve, 80));
    for (const text of ["```ts\nconst a = 1;\n```\n", "\n", "After the code.\n"]) {
      server.emit("s1", { type: "text-delta", turnId: "t1", text });
      await pause();
    }
    await vi.waitFor(() => expect(screen()).toContain("After the code."));
    expect(screen()).toContain("const a = 1;\n\nAfter the code.");
  });

  it("shows how long the running turn has taken, and counts its last answer into the context", async () => {
    const { server, screen, attached } = start();
    await attached();
    server.emit("s1", { type: "status-changed", status: "running" });
    server.emit("s1", { type: "turn-started", turnId: "t1", text: "think" });
    server.emit("s1", {
      type: "budget",
      turnId: "t1",
      usedTokens: 1200,
      limitTokens: 9000,
      windowTokens: 10_000,
      truncatedToolOutputs: 0,
      compacted: false,
    });
    await vi.waitFor(() => expect(screen()).toMatch(/running 0s ·.*ctx 1\.2k\/10k/));
    await vi.waitFor(() => expect(screen()).toContain("running 1s"), { timeout: 3000 });
    server.emit("s1", {
      type: "turn-finished",
      turnId: "t1",
      reason: "completed",
      steps: 1,
      usage: { ...usage, outputTokens: 2000 },
      timings,
    });
    server.emit("s1", { type: "status-changed", status: "idle" });
    await vi.waitFor(() => expect(screen()).toMatch(/idle ·.*ctx 3\.2k\/10k/));
    expect(screen()).not.toMatch(/idle \d/);
  });
});
