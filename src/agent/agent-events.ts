// The agent's events are defined by the agent protocol (every surface reads them); re-exported
// here so the agent core names them where it emits them.
export type {
  AgentEvent,
  AgentEventType,
  TurnEndReason,
  TurnTimings,
} from "../protocol/agent/agent-events.ts";
