// 1,000 malformed JSON-RPC frames against /v1/agent: each gets a JSON-RPC error with the right
// code, the connection and the server keep serving, and a frame over the hard limit closes only
// its own connection.
import { afterEach, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { createScriptedWorkspace, type ScriptedWorkspace } from "./support/app-server-harness.ts";
import {
  openSocket,
  startServeHarness,
  TEST_API_KEY,
  type ServeHarness,
} from "./support/serve-harness.ts";

let workspace: ScriptedWorkspace;
let harness: ServeHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  workspace.remove();
});

interface Answer {
  jsonrpc: string;
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: { code: string } };
}

/** Frames of every malformed kind, each with the error code it must get. */
function malformedFrame(index: number): { frame: string; code: number } {
  switch (index % 10) {
    case 0:
      return { frame: `{"jsonrpc":"2.0","id":${index},`, code: -32700 };
    case 1:
      return { frame: "not json at all", code: -32700 };
    case 2:
      return { frame: JSON.stringify({ id: index, method: "session/list" }), code: -32600 };
    case 3:
      return { frame: JSON.stringify([{ jsonrpc: "2.0", id: index, method: "x" }]), code: -32600 };
    case 4:
      return { frame: "42", code: -32600 };
    case 5:
      return {
        frame: JSON.stringify({ jsonrpc: "2.0", id: index, method: "no/such" }),
        code: -32601,
      };
    case 6:
      return {
        frame: JSON.stringify({ jsonrpc: "2.0", id: index, method: "turn/start", params: {} }),
        code: -32602,
      };
    case 7:
      return {
        frame: JSON.stringify({
          jsonrpc: "2.0",
          id: index,
          method: "session/attach",
          params: { sessionId: "s", lastSequence: -1 },
        }),
        code: -32602,
      };
    case 8:
      return {
        frame: JSON.stringify({ jsonrpc: "2.0", id: { nested: true }, method: "a" }),
        code: -32600,
      };
    default:
      return {
        frame: JSON.stringify({
          jsonrpc: "2.0",
          id: index,
          method: "turn/steer",
          params: { sessionId: "", text: "x" },
        }),
        code: -32602,
      };
  }
}

function collectAnswers(socket: WebSocket): Answer[] {
  const answers: Answer[] = [];
  socket.on("message", (data: Buffer) => answers.push(JSON.parse(data.toString("utf8")) as Answer));
  return answers;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("agent endpoint under malformed frames", () => {
  it("answers each of 1,000 malformed frames with a JSON-RPC error and keeps serving", async () => {
    workspace = createScriptedWorkspace();
    harness = await startServeHarness(workspace, workspace.script("quiet", [{ text: "ok" }]));
    const socket = await openSocket(harness.agentUrl, {
      headers: { authorization: `Bearer ${TEST_API_KEY}` },
    });
    const answers = collectAnswers(socket);
    const expected = Array.from({ length: 1000 }, (_, index) => malformedFrame(index));
    for (const { frame } of expected) socket.send(frame);
    await until(() => answers.length >= 1000);
    expect(answers).toHaveLength(1000);
    const codes = answers.map((answer) => answer.error?.code);
    expect([...codes].sort()).toEqual(expected.map((entry) => entry.code).sort());
    for (const answer of answers) {
      expect(answer.jsonrpc).toBe("2.0");
      expect(answer.result).toBeUndefined();
      expect(answer.error?.message.length).toBeGreaterThan(0);
    }
    const badParams = answers.find((answer) => answer.id === 6);
    expect(badParams?.error?.message).toContain("sessionId");
    expect(badParams?.error?.message).toContain("text");

    socket.send(JSON.stringify({ jsonrpc: "2.0", id: "alive", method: "session/list" }));
    await until(() => answers.length === 1001);
    expect(answers[1000]).toEqual({ jsonrpc: "2.0", id: "alive", result: { sessions: [] } });
    socket.close();
  });

  it("refuses an oversized frame with an error, and closes only the connection over the hard limit", async () => {
    workspace = createScriptedWorkspace();
    harness = await startServeHarness(workspace, workspace.script("quiet", [{ text: "ok" }]));
    const headers = { authorization: `Bearer ${TEST_API_KEY}` };
    const socket = await openSocket(harness.agentUrl, { headers });
    const answers = collectAnswers(socket);
    socket.send(
      `{"jsonrpc":"2.0","id":1,"method":"session/list","pad":"${"x".repeat(5 * 1024 * 1024)}"}`,
    );
    await until(() => answers.length === 1);
    expect(answers[0]?.error).toMatchObject({ code: -32600 });
    expect(answers[0]?.error?.message).toContain("at most");

    const closed = new Promise<number>((resolve) =>
      socket.once("close", (code: number) => resolve(code)),
    );
    socket.send("x".repeat(17 * 1024 * 1024));
    expect(await closed).toBe(1009);
    const other = await harness.connect();
    expect(await other.request("session/list", {})).toEqual({ sessions: [] });
  });
});
