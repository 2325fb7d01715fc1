// The conversation: one keyed, memoised row per transcript item, so a streaming reply
// re-renders alone and finished rows stay as they are. Follows the bottom while it is in view.
import { memo } from "preact/compat";
import { useEffect, useRef, useState } from "preact/hooks";
import type { AppStore } from "../state/app-store.ts";
import { undoStepsTo, type TranscriptItem } from "../state/transcript.ts";
import { DiffView } from "./diff-view.tsx";
import { MarkdownView } from "./markdown-view.tsx";

export function TranscriptView({
  store,
  items,
}: {
  store: AppStore;
  items: readonly TranscriptItem[];
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  useEffect(() => {
    const element = scroller.current;
    if (element !== null && following.current) element.scrollTop = element.scrollHeight;
  });
  const onScroll = (): void => {
    const element = scroller.current;
    if (element === null) return;
    following.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
  };
  return (
    <div
      class="transcript"
      ref={scroller}
      onScroll={onScroll}
      role="log"
      aria-live="polite"
      aria-label="Conversation"
      tabIndex={0}
    >
      {items.length === 0 ? (
        <p class="empty">No messages yet. Type a task below and press Enter.</p>
      ) : null}
      {items.map((item) => (
        <TranscriptRow
          key={item.id}
          item={item}
          store={store}
          undoSteps={
            item.kind === "edit" && !item.undone ? undoStepsTo(items, item.undoEntryId) : 0
          }
        />
      ))}
    </div>
  );
}

const TranscriptRow = memo(function TranscriptRow({
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
          <div class="user-text">{item.text}</div>
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
      return (
        <div class="item approval" data-testid="approval">
          <div>
            Run <code>{item.command}</code> in <code>{item.cwd}</code>?
          </div>
          {item.decision === undefined ? (
            <div class="approval-buttons">
              <button
                type="button"
                class="primary"
                onClick={() => void store.respondToApproval(item.id, "approve")}
              >
                Approve
              </button>
              <button type="button" onClick={() => void store.respondToApproval(item.id, "always")}>
                Always for this session
              </button>
              <button type="button" onClick={() => void store.respondToApproval(item.id, "deny")}>
                Deny
              </button>
            </div>
          ) : (
            <span class="badge">
              {item.decision === "approve"
                ? "approved"
                : item.decision === "always"
                  ? "approved (always)"
                  : item.decision === "deny"
                    ? "denied"
                    : "cancelled"}
            </span>
          )}
        </div>
      );
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
