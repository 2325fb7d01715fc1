// The message box: Enter sends (steers while the model streams), Alt+Enter or Queue queues,
// Stop or Esc interrupts. Attached workspace files and uploads show as removable chips.
import { useRef, useState } from "preact/hooks";
import type { AppState, AppStore } from "../state/app-store.ts";
import { formatBytes, MAX_UPLOAD_BYTES } from "../state/attachments.ts";

export function Composer({ store, state }: { store: AppStore; state: AppState }) {
  const [text, setText] = useState("");
  const picker = useRef<HTMLInputElement>(null);
  const running = state.view.transcript.status !== "idle";
  const submit = async (mode: "send" | "queue"): Promise<void> => {
    if (await store.send(text, mode)) setText("");
  };
  const onKeyDown = (event: KeyboardEvent): void => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    void submit(event.altKey ? "queue" : "send");
  };
  const onPick = async (event: Event): Promise<void> => {
    const input = event.currentTarget as HTMLInputElement;
    for (const file of Array.from(input.files ?? [])) await addFile(store, file);
    input.value = "";
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit("send");
      }}
    >
      {state.attachedFiles.length + state.uploads.length > 0 ? (
        <ul class="chips" aria-label="Attachments">
          {state.attachedFiles.map((path) => (
            <li key={`file-${path}`} class="chip">
              @{path}
              <button
                type="button"
                aria-label={`Remove ${path}`}
                onClick={() => store.toggleAttachedFile(path)}
              >
                ×
              </button>
            </li>
          ))}
          {state.uploads.map((upload, index) => (
            <li key={`upload-${index}`} class="chip upload" data-testid="upload-chip">
              {upload.name} ({formatBytes(upload.bytes)})
              <button
                type="button"
                aria-label={`Remove ${upload.name}`}
                onClick={() => store.removeUpload(index)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <textarea
        id="composer-input"
        value={text}
        rows={3}
        aria-label="Message"
        placeholder={
          running
            ? "The model is working: type and press Enter to steer it, Alt+Enter to queue"
            : "Ask Spark to do something (Enter sends, Shift+Enter for a new line)"
        }
        onInput={(event) => setText(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div class="composer-buttons">
        <button type="submit" class="primary">
          {running ? "Steer" : "Send"}
        </button>
        <button
          type="button"
          onClick={() => void submit("queue")}
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

export async function addFile(store: AppStore, file: File): Promise<void> {
  // Past the cap the content is never read: the size is enough to refuse it.
  const data =
    file.size > MAX_UPLOAD_BYTES
      ? new Uint8Array(file.size)
      : new Uint8Array(await file.arrayBuffer());
  store.addUpload(file.name, data);
}
