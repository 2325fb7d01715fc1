// What a session streams to its clients: the agent's own events plus the app server's (approvals,
// status), each stamped with the session's sequence number so a reconnecting client resumes
// exactly where it left off.
import { z } from "zod";
import type { AgentEvent } from "./agent-events.ts";

export const sessionStatusSchema = z.enum(["idle", "running", "awaiting-approval"]);
export type SessionStatus = z.infer<typeof sessionStatusSchema>;

export const approvalDecisionSchema = z.enum(["approve", "deny", "always"]);
export type ApprovalDecision = z.infer<typeof approvalDecisionSchema>;

/** An MCP tool as the model calls it: `<server>__<tool>`. */
export interface McpToolName {
  server: string;
  tool: string;
}

/** Events the app server adds to a session's stream (the agent core never emits these). */
export type ServerSessionEvent =
  | {
      type: "approval-requested";
      approvalId: string;
      turnId?: string;
      /** The whole command, exactly as it would run; for an MCP call, the tool and its arguments. */
      command: string;
      cwd: string;
      /** Set when the approval is for an MCP tool call rather than a command: "always" then
       * approves every later call of this tool in the session, whatever its arguments. */
      mcpTool?: McpToolName;
    }
  | {
      type: "approval-resolved";
      approvalId: string;
      decision: ApprovalDecision | "cancelled";
    }
  | { type: "status-changed"; status: SessionStatus }
  /** The model this session uses from its next turn on (`turn/start {model}` or `/model`). */
  | { type: "model-changed"; model: string };

export type SessionEvent = AgentEvent | ServerSessionEvent;

/** The params of the `session/event` notification. */
export interface SessionEventNotification {
  sessionId: string;
  /** 1, 2, 3, … per session, with no gaps; what `session/attach {lastSequence}` names. */
  sequence: number;
  event: SessionEvent;
}

export const sessionEventNotificationSchema = z.object({
  sessionId: z.string(),
  sequence: z.number().int().positive(),
  // Validated loosely: a newer server may add event types an older client renders generically.
  event: z.looseObject({ type: z.string() }),
});

export const SESSION_EVENT_METHOD = "session/event";
/** Sent to every connection when a session appears, changes status or ends (for session lists). */
export const SESSION_UPDATED_METHOD = "session/updated";
