import { describe, expect, it } from "vitest";
import { AgentProtocolError } from "../protocol/agent/json-rpc.ts";
import { SparkError } from "../protocol/spark-error.ts";
import { dispatchFrame, type AgentMethodHandlers } from "./json-rpc-dispatcher.ts";

function unexpected(): never {
  throw new Error("not called in this test");
}

const handlers: AgentMethodHandlers = {
  "session/list": () => ({ sessions: [] }),
  "session/start": () => {
    throw new AgentProtocolError("permission_denied", "cwd: /etc is outside the roots.");
  },
  "session/attach": () => {
    throw new SparkError("engine_busy", "A turn is running.");
  },
  "session/detach": () => {
    throw new Error("disk on fire");
  },
  "turn/start": () => ({ started: true }),
  "turn/steer": unexpected,
  "turn/queue": unexpected,
  "turn/interrupt": async ({ sessionId }) => ({ interrupted: sessionId === "s1" }),
  "edit/undo": unexpected,
  "approval/respond": unexpected,
  "model/list": unexpected,
  "mcp/list": unexpected,
  "workspace/files": unexpected,
  "session/compact": unexpected,
};

async function answer(frame: string, maxFrameBytes?: number): Promise<unknown> {
  const text = await dispatchFrame(frame, handlers, maxFrameBytes);
  return text === undefined ? undefined : JSON.parse(text);
}

const request = (id: unknown, method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

describe("dispatchFrame", () => {
  it("answers a valid request with its result and id", async () => {
    expect(await answer(request(7, "turn/interrupt", { sessionId: "s1" }))).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { interrupted: true },
    });
    expect(await answer(request("a", "session/list"))).toMatchObject({
      id: "a",
      result: { sessions: [] },
    });
  });

  it("maps malformed JSON to -32700 with a null id", async () => {
    expect(await answer("{nope")).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it("maps a bad envelope to -32600, keeping a readable id", async () => {
    expect(await answer(JSON.stringify({ id: 3, method: "session/list" }))).toMatchObject({
      id: 3,
      error: { code: -32600, message: expect.stringContaining("jsonrpc") as unknown },
    });
    expect(await answer("[]")).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await answer("null")).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it("maps an unknown method to -32601, naming it", async () => {
    expect(await answer(request(1, "toString"))).toMatchObject({
      id: 1,
      error: { code: -32601, message: 'Unknown method "toString".' },
    });
  });

  it("maps bad params to -32602 with a message naming each field", async () => {
    const reply = (await answer(request(2, "turn/start", { sessionId: 5 }))) as {
      error: { code: number; message: string; data: { code: string } };
    };
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.data.code).toBe("invalid_params");
    expect(reply.error.message).toMatch(/sessionId: .*; text: /);
  });

  it("maps handler errors: protocol errors as they are, SparkErrors by code, others as internal", async () => {
    expect(await answer(request(1, "session/start", {}))).toMatchObject({
      error: { code: -32003, data: { code: "permission_denied" } },
    });
    expect(await answer(request(1, "session/attach", { sessionId: "s" }))).toMatchObject({
      error: { code: -32002, message: "A turn is running.", data: { code: "engine_busy" } },
    });
    expect(await answer(request(1, "session/detach", { sessionId: "s" }))).toMatchObject({
      error: { code: -32603, data: { code: "internal_error" } },
    });
  });

  it("does not answer a notification", async () => {
    expect(
      await answer(JSON.stringify({ jsonrpc: "2.0", method: "session/list" })),
    ).toBeUndefined();
  });

  it("refuses a frame over the byte limit without parsing it", async () => {
    expect(await answer(request(1, "session/list"), 10)).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.stringContaining("at most 10") as unknown },
    });
  });
});
