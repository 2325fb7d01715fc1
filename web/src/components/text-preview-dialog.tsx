// An attached file's text, shown as text (a text node in a <pre>); Esc or Close ends it.
import { useEffect, useRef } from "preact/hooks";

export function TextPreviewDialog({
  title,
  text,
  onClose,
}: {
  title: string;
  text: string;
  onClose: () => void;
}) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => closeButton.current?.focus(), []);
  return (
    <div
      class="dialog-backdrop"
      onClick={(event) => event.target === event.currentTarget && onClose()}
    >
      <div
        class="dialog preview"
        role="dialog"
        aria-modal="true"
        aria-labelledby="preview-title"
        data-testid="preview"
      >
        <h2 id="preview-title">{title}</h2>
        <pre class="preview-text">{text}</pre>
        <button type="button" ref={closeButton} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
