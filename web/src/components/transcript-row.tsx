// One row of the conversation per transcript item, memoised so only a changed item re-renders:
// the user's message with its attachment chips, the reply as Markdown, a tool call on one line
// (click for its output), an edit as a diff with Undo, an approval card, a notice.
import { memo } from "preact/compat";
import { useState } from "preact/hooks";
import type { AppStore } from "../state/app-store.ts";
import type { TranscriptItem } from "../state/transcript.ts";
import { AttachmentChips } from "./attachment-chips.tsx";
import { DiffView } from "./diff-view.tsx";
import { MarkdownView } from "./markdown-view.tsx";

export const TranscriptRow = memo(function TranscriptRow({
  item,
  store,
  undoSteps,
}: {
  item: TranscriptItem;
  store: AppStore;
  undoSteps: number;
}) {
  switch (item.kind) {
    case "user":
      return (
        <div class="item user" data-testid="user-message">
          <span class="role">
            {item.via === undefined ? "You" : item.via === "steer" ? "You (steer)" : "You (queued)"}
          </span>
          {item.text === "" ? null : <div class="user-text">{item.text}</div>}
          <AttachmentChips store={store} files={item.files ?? []} uploads={item.uploads ?? []} />
        </div>
      );
    case "assistant":
      return (
        <div
          class={`item assistant${item.streaming ? " streaming" : ""}`}
          data-testid="assistant-message"
        >
          <MarkdownView text={item.text} />
          {item.interrupted ? <span class="badge">interrupted</span> : null}
        </div>
      );
    case "tool":
      return <ToolRow item={item} />;
    case "edit":
      return (
        <div class={`item edit${item.undone ? " undone" : ""}`} data-testid="edit">
          <div class="edit-header">
            <span class="edit-path">
              {item.movedFrom === undefined ? item.path : `${item.movedFrom} → ${item.path}`}
            </span>
            <span class="edit-counts">
              <span class="added">+{item.linesAdded}</span>{" "}
              <span class="removed">−{item.linesRemoved}</span>
            </span>
            {item.undone ? (
              <span class="badge">undone</span>
            ) : (
              <button
                type="button"
                onClick={() => void store.undo(item.undoEntryId)}
                title="Restore the file(s) as they were before this edit"
              >
                {undoSteps > 1 ? `Undo (and ${undoSteps - 1} later)` : "Undo"}
              </button>
            )}
          </div>
          <DiffView diff={item.unifiedDiff} />
        </div>
      );
    case "approval":
      return <ApprovalCard item={item} store={store} />;
    case "notice":
      return <div class={`item notice ${item.tone}`}>{item.text}</div>;
    default:
      item satisfies never;
      return null;
  }
});

function ToolRow({ item }: { item: Extract<TranscriptItem, { kind: "tool" }> }) {
  const [open, setOpen] = useState(false);
  const state = item.output === undefined ? "running" : item.isError ? "failed" : "done";
  return (
    <div class={`item tool ${state}`} data-testid="tool-call">
      <button type="button" class="tool-line" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span class="tool-state">{state === "running" ? "…" : state === "failed" ? "✗" : "✓"}</span>
        <span class="tool-summary">{item.summary || item.name}</span>
        {item.durationMs === undefined ? null : (
          <span class="tool-duration">{Math.round(item.durationMs)} ms</span>
        )}
      </button>
      {open ? <pre class="tool-output">{item.output ?? "(still running)"}</pre> : null}
    </div>
  );
}

const DECISIONS = {
  approve: "approved",
  always: "approved (always)",
  deny: "denied",
  cancelled: "cancelled",
} as const;

function ApprovalCard({
  item,
  store,
}: {
  item: Extract<TranscriptItem, { kind: "approval" }>;
  store: AppStore;
}) {
  // Focusable, so y / a / n answer it from the card too (see shortcuts.ts).
  return (
    <div
      class="item approval"
      data-testid="approval"
      tabIndex={item.decision === undefined ? 0 : -1}
    >
      {item.mcpTool === undefined ? (
        <div>
          Run <code>{item.command}</code> in <code>{item.cwd}</code>?
        </div>
      ) : (
        <div>
          Call <code>{item.mcpTool.tool}</code> on MCP server <code>{item.mcpTool.server}</code>:{" "}
          <code>{item.command}</code>?
        </div>
      )}
      {item.decision === undefined ? (
        <div class="approval-buttons">
          <button
            type="button"
            class="primary"
            onClick={() => void store.respondToApproval(item.id, "approve")}
          >
            Approve
          </button>
          <button
            type="button"
            title={
              item.mcpTool === undefined
                ? "This exact command, without asking again in this session"
                : `Every call of ${item.mcpTool.tool}, whatever its arguments, in this session`
            }
            onClick={() => void store.respondToApproval(item.id, "always")}
          >
            {item.mcpTool === undefined ? "Always for this session" : "Always this tool"}
          </button>
          <button type="button" onClick={() => void store.respondToApproval(item.id, "deny")}>
            Deny
          </button>
          <span class="hint">
            keys: <kbd>y</kbd> approve, <kbd>a</kbd> always, <kbd>n</kbd> deny
          </span>
        </div>
      ) : (
        <span class="badge">{DECISIONS[item.decision]}</span>
      )}
    </div>
  );
}
