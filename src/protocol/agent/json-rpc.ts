// JSON-RPC 2.0 envelopes for the agent protocol, and the error codes every client can rely on.
import { z } from "zod";

export const requestIdSchema = z.union([z.string().max(128), z.number().int()]);
export type RequestId = z.infer<typeof requestIdSchema>;

export const jsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: requestIdSchema,
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});
export type JsonRpcRequest = z.infer<typeof jsonRpcRequestSchema>;

export const jsonRpcNotificationSchema = z.object({
  jsonrpc: z.literal("2.0"),
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});
export type JsonRpcNotification = z.infer<typeof jsonRpcNotificationSchema>;

export const jsonRpcErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z
    .looseObject({
      /** A stable string code (`session_not_found`, `engine_busy`, …) for programs. */
      code: z.string(),
    })
    .optional(),
});
export type JsonRpcErrorObject = z.infer<typeof jsonRpcErrorObjectSchema>;

export const jsonRpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal("2.0"), id: requestIdSchema, result: z.unknown() }),
  z.object({
    jsonrpc: z.literal("2.0"),
    id: z.union([requestIdSchema, z.null()]),
    error: jsonRpcErrorObjectSchema,
  }),
]);
export type JsonRpcResponse = z.infer<typeof jsonRpcResponseSchema>;

/** JSON-RPC's own codes, then the agent protocol's (-32000 to -32099 is the server range). */
export const JSON_RPC_ERRORS = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal_error: -32603,
  session_not_found: -32001,
  engine_busy: -32002,
  permission_denied: -32003,
  replay_gap: -32004,
  approval_not_found: -32005,
  not_attached: -32006,
  agent_error: -32010,
} as const;

export type AgentProtocolErrorCode = keyof typeof JSON_RPC_ERRORS;

/** An error answered to a request: its JSON-RPC number, its string code, and a message a person can act on. */
export class AgentProtocolError extends Error {
  override readonly name = "AgentProtocolError";
  constructor(
    readonly code: AgentProtocolErrorCode | (string & {}),
    message: string,
    readonly rpcCode: number = JSON_RPC_ERRORS[code as AgentProtocolErrorCode] ??
      JSON_RPC_ERRORS.agent_error,
  ) {
    super(message);
  }

  toErrorObject(): JsonRpcErrorObject {
    return { code: this.rpcCode, message: this.message, data: { code: this.code } };
  }

  static fromErrorObject(error: JsonRpcErrorObject): AgentProtocolError {
    return new AgentProtocolError(error.data?.code ?? "agent_error", error.message, error.code);
  }
}
