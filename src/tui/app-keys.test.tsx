// The terminal UI's keys: Enter, Esc, Tab queueing, approvals, completion, history, bursts,
// Delete and Backspace, bracketed paste and Ctrl+C, against a fake agent server.
import { describe, expect, it, vi } from "vitest";
import { createFakeAgentServer } from "../../test/support/fake-agent-server.ts";
import {
  ENTER,
  ESC,
  LEFT,
  startApp as start,
  TAB,
  UP,
  useAppCleanup,
} from "../../test/support/tui-app-harness.tsx";

useAppCleanup();

describe("the terminal UI's keys", () => {
  it("sends with Enter when idle; steers with Enter and interrupts with Esc while running", async () => {
    const { server, type, press, attached } = start();
    await attached();
    await type("add a test");
    await press(ENTER);
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "turn/start",
        params: { sessionId: "s1", text: "add a test" },
      }),
    );
    server.emit("s1", { type: "status-changed", status: "running" });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await type("no, keep the old name");
    await press(ENTER);
    await press(ESC);
    await vi.waitFor(() =>
      expect(server.requests.slice(-2)).toEqual([
        { method: "turn/steer", params: { sessionId: "s1", text: "no, keep the old name" } },
        { method: "turn/interrupt", params: { sessionId: "s1" } },
      ]),
    );
  });

  it("shows Tab-queued messages above the input and sends them as the next turns (issue 27)", async () => {
    const { server, screen, type, press, attached } = start();
    await attached();
    const runTurn = (turnId: string, text: string): void => {
      server.emit("s1", { type: "status-changed", status: "running" });
      server.emit("s1", { type: "turn-started", turnId, text });
    };
    runTurn("t1", "add a test");
    await new Promise((resolve) => setTimeout(resolve, 60));
    await type("then run lint");
    await press(TAB);
    await type("and commit");
    await press(TAB);
    await vi.waitFor(() => expect(screen()).toContain("↳ queued: and commit"));
    expect(screen()).toContain("↳ queued: then run lint");
    // Nothing reaches the server mid-turn: the queue waits for the turn to end.
    expect(server.requests.map((request) => request.method)).toEqual(["session/attach"]);

    server.emit("s1", { type: "status-changed", status: "idle" });
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "turn/start",
        params: { sessionId: "s1", text: "then run lint" },
      }),
    );
    // One message a turn: the second waits for the turn the first started.
    runTurn("t2", "then run lint");
    await vi.waitFor(() => expect(screen()).not.toContain("↳ queued: then run lint"));
    expect(screen()).toContain("↳ queued: and commit");
    server.emit("s1", { type: "status-changed", status: "idle" });
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "turn/start",
        params: { sessionId: "s1", text: "and commit" },
      }),
    );
    expect(server.requests.filter((request) => request.method === "turn/start")).toHaveLength(2);
  });

  it("gives queued messages back: Alt+↑ the last one, an interrupt all of them", async () => {
    const { server, screen, type, press, attached } = start();
    await attached();
    server.emit("s1", { type: "status-changed", status: "running" });
    await new Promise((resolve) => setTimeout(resolve, 60));
    for (const text of ["first", "second", "third"]) {
      await type(text);
      await press(TAB);
    }
    await vi.waitFor(() => expect(screen()).toContain("↳ queued: third"));
    await press("\u001b[1;3A"); // Alt+↑
    await vi.waitFor(() => expect(screen()).toContain("steer › third"));
    expect(screen()).not.toContain("↳ queued: third");
    await press("\u0015"); // Ctrl+U
    await press(ESC);
    await vi.waitFor(() => expect(screen()).not.toContain("↳ queued"));
    expect(screen()).toMatch(/steer › first[\s│]*second/);
    expect(server.requests.at(-1)).toEqual({
      method: "turn/interrupt",
      params: { sessionId: "s1" },
    });
    server.emit("s1", { type: "status-changed", status: "idle" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.requests.some((request) => request.method === "turn/start")).toBe(false);
  });

  it("asks for a command approval inline and answers y, n or a", async () => {
    const { server, screen, press, attached } = start();
    await attached();
    server.emit("s1", { type: "status-changed", status: "awaiting-approval" });
    server.emit("s1", {
      type: "approval-requested",
      approvalId: "a1",
      command: "npm test -- --run src/greet.test.ts",
      cwd: "/repo",
    });
    await vi.waitFor(() => expect(screen()).toContain("npm test -- --run src/greet.test.ts"));
    expect(screen()).toContain("this exact command again");
    await press("a");
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "approval/respond",
        params: { sessionId: "s1", approvalId: "a1", decision: "always" },
      }),
    );
    server.emit("s1", { type: "approval-resolved", approvalId: "a1", decision: "always" });
    await vi.waitFor(() =>
      expect(screen()).toContain(
        "Command approved, and this exact command from now on in this session.",
      ),
    );
    expect(screen()).not.toContain("this exact command again");
  });

  it("completes slash commands while typing and runs them", async () => {
    const { screen, type, press, attached } = start();
    await attached();
    await type("/he");
    await vi.waitFor(() => expect(screen()).toContain("▸ /help"));
    await press(ENTER);
    await vi.waitFor(() => expect(screen()).toContain("Commands:"));
    expect(screen()).toContain("/resume [session id]");
    await type("/c");
    await vi.waitFor(() => expect(screen()).toContain("▸ /compact"));
    await press("\u001b[B"); // down: /clear
    await press(TAB);
    await vi.waitFor(() => expect(screen()).toContain("› /clear"));
  });

  it("completes @-mentions from workspace/files and recalls history with the up arrow", async () => {
    const server = createFakeAgentServer({
      "workspace/files": ({ query }) => ({
        files: ["src/agent/turn-loop.ts", "src/agent/agent-session.ts"].filter((file) =>
          file.includes(query ?? ""),
        ),
        truncated: false,
      }),
    });
    const { screen, type, press, attached } = start(server);
    await attached();
    await type("explain @turn");
    await vi.waitFor(() => expect(screen()).toContain("▸ src/agent/turn-loop.ts"));
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toMatchObject({
        method: "workspace/files",
        params: { sessionId: "s1", query: "turn" },
      }),
    );
    await press(TAB);
    await vi.waitFor(() => expect(screen()).toContain("explain @src/agent/turn-loop.ts"));
    await press(ENTER);
    await vi.waitFor(() => expect(server.requests.at(-1)?.method).toBe("turn/start"));
    expect(server.requests.at(-1)?.params).toEqual({
      sessionId: "s1",
      text: "explain @src/agent/turn-loop.ts ",
    });
    await press(UP);
    await vi.waitFor(() => expect(screen()).toContain("› explain @src/agent/turn-loop.ts"));
  });

  it("picks a session with /resume and switches to it", async () => {
    const server = createFakeAgentServer({
      "session/list": () => ({
        sessions: [
          { sessionId: "s1", cwd: "/repo", live: true, status: "idle" },
          { sessionId: "older-1", cwd: "/repo", live: false, status: "idle", title: "fix lint" },
          { sessionId: "older-2", cwd: "/repo", live: false, status: "idle", title: "add tests" },
        ],
      }),
    });
    const { screen, type, press, attached } = start(server);
    await attached();
    await type("/resume");
    await press(ENTER);
    await vi.waitFor(() => expect(screen()).toContain("Resume a session"));
    expect(screen()).toContain("fix lint");
    await press("\u001b[B");
    await vi.waitFor(() => expect(screen()).toMatch(/▸ older-2/));
    await press(ENTER);
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "session/attach",
        params: { sessionId: "older-2", lastSequence: 0 },
      }),
    );
    await vi.waitFor(() => expect(screen()).toContain("session older-2"));
    expect(server.requests.some((request) => request.method === "session/detach")).toBe(true);
  });

  it("applies each key of a fast burst in order (issue 27: Ctrl+U was ignored, `zz/sessions` sent)", async () => {
    const server = createFakeAgentServer({ "session/list": () => ({ sessions: [] }) });
    const { press, attached } = start(server);
    await attached();
    // One read, as tmux send-keys "zz" C-u "/sessions" Enter "fix it" Enter delivers it.
    await press("zz\u0015/sessions\rfix it\r");
    await vi.waitFor(() =>
      expect(server.requests.slice(1).map((request) => request.method)).toEqual([
        "session/list",
        "turn/start",
      ]),
    );
    expect(server.requests.at(-1)?.params).toEqual({ sessionId: "s1", text: "fix it" });
  });

  it("deletes the character under the cursor with Delete and before it with Backspace", async () => {
    const { server, type, press, attached } = start();
    await attached();
    await type("abcd");
    await press(LEFT);
    await press(LEFT);
    await press("\u001b[3~"); // Delete: the c
    await press("\u007f"); // Backspace: the b
    await press(ENTER);
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "turn/start",
        params: { sessionId: "s1", text: "ad" },
      }),
    );
  });

  it("keeps a bracketed paste's lines in the input instead of sending the first", async () => {
    const { server, screen, press, attached } = start();
    await attached();
    await press("\u001b[200~first line\rsecond line\u001b[201~");
    await vi.waitFor(() => expect(screen()).toContain("second line"));
    expect(server.requests.map((request) => request.method)).toEqual(["session/attach"]);
    await press(ENTER);
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "turn/start",
        params: { sessionId: "s1", text: "first line\nsecond line" },
      }),
    );
  });

  it("interrupts a running turn on Ctrl+C instead of quitting (issue 27)", async () => {
    const { server, screen, press, quits, attached } = start();
    await attached();
    server.emit("s1", { type: "status-changed", status: "running" });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await press("\u0003");
    await vi.waitFor(() =>
      expect(server.requests.at(-1)).toEqual({
        method: "turn/interrupt",
        params: { sessionId: "s1" },
      }),
    );
    await vi.waitFor(() => expect(screen()).toContain("Interrupted. Press Ctrl+C twice to quit."));
    await press("\u0003");
    expect(quits).toEqual([]);
  });

  it("quits on the second Ctrl+C, not the first", async () => {
    const { screen, press, quits, attached } = start();
    await attached();
    await press("\u0003");
    await vi.waitFor(() => expect(screen()).toContain("Press Ctrl+C again to quit."));
    expect(quits).toEqual([]);
    await press("\u0003");
    await vi.waitFor(() => expect(quits).toEqual([1]));
  });
});
