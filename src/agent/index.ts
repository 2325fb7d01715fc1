// Public surface of the coding agent for surfaces (terminal UI, app server, CLI): the session,
// its event union, model clients, tools, session logs, and the rendering of events for people.
export {
  AgentSession,
  type AgentSessionOptions,
  type AgentEventListener,
  type CompactOutcome,
} from "./agent-session.ts";
export type { AgentEvent, AgentEventType, TurnEndReason, TurnTimings } from "./agent-events.ts";
export type { TurnResult } from "./turn-loop.ts";
export type { TranscriptMessage } from "./transcript.ts";
export type { ModelClient, ModelClientStreamOptions } from "./model-client/model-client.ts";
export { InProcessModelClient } from "./model-client/in-process-model-client.ts";
export {
  GatewayModelClient,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type GatewayModelClientOptions,
} from "./model-client/gateway-model-client.ts";
export { ToolRegistry, DEFAULT_TOOLS } from "./tools/tool-registry.ts";
export type { AgentTool, ToolContext } from "./tools/agent-tool.ts";
export type { CommandApproval, CommandApprovalRequest } from "./approval/command-approval.ts";
export { ContextBudget, DEFAULT_WINDOW_TOKENS } from "./context/context-budget.ts";
export { loadInstructions } from "./instructions/load-instructions.ts";
export {
  readSession,
  type LoadedSession,
  type SessionSummary,
} from "./session-store/read-session.ts";
export { findSession, listSessions, sessionsDirectory } from "./session-store/session-directory.ts";
export { createHumanEventWriter } from "./render/human-event-writer.ts";
