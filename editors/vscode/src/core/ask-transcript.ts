// What the "Ask Spark" view shows for each agent-protocol session event: plain-text entries the
// webview renders with textContent (model and tool text is data, never markup).
import type { SessionEvent } from "../../../../src/protocol/agent/index.ts";

export type TranscriptEntry =
  | { kind: "user"; text: string }
  | { kind: "assistant-delta"; text: string }
  | { kind: "tool"; text: string }
  | { kind: "approval"; approvalId: string; text: string }
  | { kind: "status"; text: string }
  | { kind: "error"; text: string };

export function transcriptEntryFor(event: SessionEvent): TranscriptEntry | undefined {
  switch (event.type) {
    case "turn-started":
      return { kind: "user", text: event.text };
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
    case "turn-finished":
      return {
        kind: "status",
        text: event.reason === "completed" ? "" : `turn ended: ${event.reason}`,
      };
    case "model-changed":
      return { kind: "status", text: `model: ${event.model}` };
    case "error":
      return { kind: "error", text: event.error.message };
    default:
      return undefined;
  }
}
