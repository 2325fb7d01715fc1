// Messages queued in this page for after the running turn, each removable until it is sent;
// after a Stop they wait for the user to send them on.
import type { AppStore } from "../state/app-store.ts";
import type { SessionQueue } from "../state/message-queue.ts";

export function QueueList({ store, queue }: { store: AppStore; queue: SessionQueue }) {
  if (queue.messages.length === 0) return null;
  return (
    <section class="queue" aria-label="Queued messages" data-testid="queue">
      <div class="queue-heading">
        {queue.held ? (
          <>
            <span>Held after Stop:</span>
            <button type="button" onClick={() => store.resumeQueue()}>
              Send when idle
            </button>
          </>
        ) : (
          <span>Queued: sent when the turn ends</span>
        )}
      </div>
      <ol class="queue-list">
        {queue.messages.map((message) => {
          const attached = message.parts.files.length + message.parts.uploads.length;
          return (
            <li key={message.id} class="queued" data-testid="queued-message">
              <span class="queued-text">
                {message.parts.text === "" ? "(attachments only)" : message.parts.text}
                {attached === 0 ? "" : ` (+${attached} attached)`}
              </span>
              <button
                type="button"
                aria-label="Remove queued message"
                onClick={() => store.removeQueued(message.id)}
              >
                ×
              </button>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
