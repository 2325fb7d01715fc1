// The conversation: one keyed, memoised row per transcript item, so a streaming reply
// re-renders alone and finished rows stay as they are. Follows the stream unless the user
// scrolled up; then "↓ new output" brings them back to the end.
import type { AppStore } from "../state/app-store.ts";
import { undoStepsTo, type TranscriptItem } from "../state/transcript.ts";
import { TranscriptRow } from "./transcript-row.tsx";
import { useFollowStream } from "./use-follow-stream.ts";

export function TranscriptView({
  store,
  sessionId,
  items,
}: {
  store: AppStore;
  sessionId: string | undefined;
  items: readonly TranscriptItem[];
}) {
  const follow = useFollowStream(sessionId);
  return (
    <div class="transcript-frame">
      <div
        class="transcript"
        ref={follow.scroller}
        onScroll={follow.onScroll}
        onWheel={follow.onWheel}
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
      {follow.following ? null : (
        <button type="button" class="new-output" onClick={follow.jumpToEnd}>
          ↓ new output
        </button>
      )}
    </div>
  );
}
