// What the "Ask Spark" view shows for each agent-protocol session event: plain-text entries the
// page renders with textContent, or as DOM built from parsed Markdown for the assistant (model and
// tool text is data, never markup). The user's own question is echoed by the page when sent.
import type { SessionEvent } from "../../../../src/protocol/agent/index.ts";

export type TranscriptEntry =
  | { kind: "user"; text: string }
  | { kind: "assistant-delta"; text: string }
  | { kind: "tool"; text: string }
  | { kind: "approval"; approvalId: string; text: string }
  | { kind: "status"; text: string }
  | { kind: "error"; text: string }
  | { kind: "busy"; busy: boolean };

export function transcriptEntryFor(event: SessionEvent): TranscriptEntry | undefined {
  switch (event.type) {
    case "user-message":
      return { kind: "user", text: event.text };
    case "text-delta":
      return { kind: "assistant-delta", text: event.text };
    case "tool-call":
      return { kind: "tool", text: event.summary };
    case "edit-applied":
      return { kind: "tool", text: `edited ${event.path}` };
    case "approval-requested":
      return { kind: "approval", approvalId: event.approvalId, text: `Run \`${event.command}\`?` };
    case "interrupted":
      return { kind: "status", text: "stopped" };
    case "turn-finished":
      return event.reason === "completed" || event.reason === "interrupted"
        ? undefined
        : { kind: "status", text: `turn ended: ${event.reason}` };
    case "status-changed":
      return { kind: "busy", busy: event.status !== "idle" };
    case "model-changed":
      return { kind: "status", text: `model: ${event.model}` };
    case "error":
      return { kind: "error", text: event.error.message };
    default:
      return undefined;
  }
}
