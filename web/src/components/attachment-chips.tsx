// A message's attachments as chips: workspace files as `@path`, uploads as buttons that show
// the uploaded text (as text) in a dialog. The message box adds a remove button to each.
import type { AppStore } from "../state/app-store.ts";
import { formatBytes, type MessageParts } from "../state/attachments.ts";

export function AttachmentChips({
  store,
  files,
  uploads,
  onRemoveFile,
  onRemoveUpload,
}: {
  store: AppStore;
  files: readonly string[];
  uploads: MessageParts["uploads"];
  onRemoveFile?: (path: string) => void;
  onRemoveUpload?: (index: number) => void;
}) {
  if (files.length + uploads.length === 0) return null;
  return (
    <ul class="chips" aria-label="Attachments">
      {files.map((path) => (
        <li key={`file-${path}`} class="chip" data-testid="file-chip">
          <span class="chip-label">@{path}</span>
          {onRemoveFile === undefined ? null : (
            <button type="button" aria-label={`Remove ${path}`} onClick={() => onRemoveFile(path)}>
              ×
            </button>
          )}
        </li>
      ))}
      {uploads.map((upload, index) => (
        <li key={`upload-${index}`} class="chip upload" data-testid="upload-chip">
          <button
            type="button"
            class="chip-label"
            title="Show the uploaded text"
            onClick={() => store.showPreview(upload.name, upload.text)}
          >
            {upload.name} ({formatBytes(new TextEncoder().encode(upload.text).byteLength)})
          </button>
          {onRemoveUpload === undefined ? null : (
            <button
              type="button"
              aria-label={`Remove ${upload.name}`}
              onClick={() => onRemoveUpload(index)}
            >
              ×
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
