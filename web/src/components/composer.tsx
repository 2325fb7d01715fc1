// The message box: Enter sends (steers while the model streams), Alt+Enter or Queue queues it
// for after the turn, Stop or Esc interrupts; `@` completes workspace files. Queued messages,
// attached files and uploads show above it.
import { useRef } from "preact/hooks";
import type { AppState, AppStore } from "../state/app-store.ts";
import { formatBytes, MAX_UPLOAD_BYTES } from "../state/attachments.ts";
import { AttachmentChips } from "./attachment-chips.tsx";
import { QueueList } from "./queue-list.tsx";
import { useComposer } from "./use-composer.ts";

export function Composer({ store, state }: { store: AppStore; state: AppState }) {
  const composer = useComposer(store);
  const picker = useRef<HTMLInputElement>(null);
  const running = state.view.transcript.status !== "idle";
  const { suggestions, selected } = composer.mention;
  const onPick = async (event: Event): Promise<void> => {
    const input = event.currentTarget as HTMLInputElement;
    for (const file of Array.from(input.files ?? [])) await store.addUploadFrom(file);
    input.value = "";
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void composer.submit("send");
      }}
    >
      <QueueList store={store} queue={state.queue} />
      <AttachmentChips
        store={store}
        files={state.attachedFiles}
        uploads={state.uploads}
        onRemoveFile={(path) => store.toggleAttachedFile(path)}
        onRemoveUpload={(index) => store.removeUpload(index)}
      />
      <div class="composer-input">
        {suggestions.length === 0 ? null : (
          <ul class="mentions" id="mention-list" role="listbox" aria-label="Workspace files">
            {suggestions.map((path, index) => (
              <li
                key={path}
                id={`mention-${index}`}
                role="option"
                aria-selected={index === selected}
                class={index === selected ? "selected" : undefined}
                // mousedown, not click: the message box keeps the focus.
                onMouseDown={(event) => {
                  event.preventDefault();
                  composer.acceptMention(path);
                }}
              >
                {path}
              </li>
            ))}
          </ul>
        )}
        <textarea
          id="composer-input"
          ref={composer.input}
          value={composer.text}
          rows={3}
          aria-label="Message"
          aria-autocomplete="list"
          aria-controls="mention-list"
          aria-expanded={suggestions.length > 0}
          aria-activedescendant={suggestions.length > 0 ? `mention-${selected}` : undefined}
          placeholder={
            running
              ? "The model is working: Enter steers it, Alt+Enter queues for after the turn"
              : "Ask Spark to do something (Enter sends, Shift+Enter new line, @ names a file)"
          }
          onInput={composer.onInput}
          onSelect={composer.onSelect}
          onKeyDown={composer.onKeyDown}
        />
      </div>
      <div class="composer-buttons">
        <button type="submit" class="primary">
          {running ? "Steer" : "Send"}
        </button>
        <button
          type="button"
          onClick={() => void composer.submit("queue")}
          title="Send after the current turn (Alt+Enter)"
        >
          Queue
        </button>
        <button
          type="button"
          class="stop"
          disabled={!running}
          onClick={() => void store.interrupt()}
          title="Stop the running turn (Esc)"
        >
          Stop
        </button>
        <button
          type="button"
          onClick={() => picker.current?.click()}
          title={`Attach text files (up to ${formatBytes(MAX_UPLOAD_BYTES)} each); or drop them on the page`}
        >
          Upload…
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          data-testid="upload-input"
          onChange={(event) => void onPick(event)}
        />
      </div>
    </form>
  );
}
