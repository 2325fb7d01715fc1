// Turns one text frame into one JSON-RPC answer: parse, check the envelope, find the method,
// validate its params with the method table's zod schema, run it, and map any failure to an error
// object. It never throws, so no frame can take the connection (or the server) down.
import type { z } from "zod";
import {
  agentMethods,
  isAgentMethodName,
  type AgentMethodName,
  type AgentMethodResult,
} from "../protocol/agent/agent-methods.ts";
import {
  AgentProtocolError,
  JSON_RPC_ERRORS,
  jsonRpcRequestSchema,
  requestIdSchema,
  type JsonRpcErrorObject,
  type RequestId,
} from "../protocol/agent/json-rpc.ts";
import { SparkError } from "../protocol/spark-error.ts";

export type AgentMethodHandlers = {
  [Method in AgentMethodName]: (
    params: z.output<(typeof agentMethods)[Method]["params"]>,
  ) => Promise<AgentMethodResult<Method>> | AgentMethodResult<Method>;
};

export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** The answer to send, or undefined for a notification (a request without an id gets none). */
export async function dispatchFrame(
  text: string,
  handlers: AgentMethodHandlers,
  maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
): Promise<string | undefined> {
  if (Buffer.byteLength(text) > maxFrameBytes) {
    return errorAnswer(
      null,
      new AgentProtocolError(
        "invalid_request",
        `The frame is ${Buffer.byteLength(text)} bytes; this server takes at most ${maxFrameBytes}.`,
      ),
    );
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch (error) {
    return errorAnswer(
      null,
      new AgentProtocolError(
        "parse_error",
        `The frame is not valid JSON: ${(error as Error).message}`,
      ),
    );
  }
  const id = requestIdOf(message);
  if (Array.isArray(message)) {
    return errorAnswer(
      null,
      new AgentProtocolError(
        "invalid_request",
        "Batch requests are not supported; send one request per frame.",
      ),
    );
  }
  const envelope = jsonRpcRequestSchema.safeParse(message);
  if (!envelope.success) {
    // A well-formed notification (no id) needs no answer; this protocol defines none from clients.
    if (isNotification(message)) return undefined;
    return errorAnswer(
      id,
      new AgentProtocolError(
        "invalid_request",
        `Not a JSON-RPC 2.0 request: ${describeIssues(envelope.error.issues)}.`,
      ),
    );
  }
  const { method, params } = envelope.data;
  if (!isAgentMethodName(method)) {
    return errorAnswer(
      envelope.data.id,
      new AgentProtocolError("method_not_found", `Unknown method "${method}".`),
    );
  }
  try {
    const result = await runMethod(method, params, handlers);
    return JSON.stringify({ jsonrpc: "2.0", id: envelope.data.id, result });
  } catch (error) {
    return errorAnswer(envelope.data.id, error);
  }
}

async function runMethod<Method extends AgentMethodName>(
  method: Method,
  params: unknown,
  handlers: AgentMethodHandlers,
): Promise<unknown> {
  const parsed = agentMethods[method].params.safeParse(params);
  if (!parsed.success) {
    throw new AgentProtocolError(
      "invalid_params",
      `Invalid params for ${method}: ${describeIssues(parsed.error.issues)}.`,
    );
  }
  const handler = handlers[method] as (params: unknown) => unknown;
  return await handler(parsed.data);
}

function errorAnswer(id: RequestId | null, error: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: toErrorObject(error) });
}

export function toErrorObject(error: unknown): JsonRpcErrorObject {
  if (error instanceof AgentProtocolError) return error.toErrorObject();
  if (error instanceof SparkError) {
    const code = error.code in JSON_RPC_ERRORS ? error.code : "agent_error";
    const rpcCode =
      error.code === "invalid_request"
        ? JSON_RPC_ERRORS.invalid_params
        : (JSON_RPC_ERRORS[code as keyof typeof JSON_RPC_ERRORS] ?? JSON_RPC_ERRORS.agent_error);
    return { code: rpcCode, message: error.message, data: { code: error.code } };
  }
  // An unexpected failure: the message is kept (it helps), the stack stays on the server.
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: JSON_RPC_ERRORS.internal_error,
    message: `Internal error: ${message}`,
    data: { code: "internal_error" },
  };
}

/** Names each failing field, e.g. `sessionId: expected string, received undefined`. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map(
      (issue) => `${issue.path.length === 0 ? "params" : issue.path.join(".")}: ${issue.message}`,
    )
    .join("; ");
}

function requestIdOf(message: unknown): RequestId | null {
  if (typeof message !== "object" || message === null || !("id" in message)) return null;
  const parsed = requestIdSchema.safeParse(message.id);
  return parsed.success ? parsed.data : null;
}

function isNotification(message: unknown): boolean {
  return (
    typeof message === "object" &&
    message !== null &&
    !Array.isArray(message) &&
    !("id" in message) &&
    (message as { jsonrpc?: unknown }).jsonrpc === "2.0" &&
    typeof (message as { method?: unknown }).method === "string"
  );
}
