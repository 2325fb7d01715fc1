// The shortcuts list, opened with `?`; Esc or the button closes it.
import { useEffect, useRef } from "preact/hooks";
import { SHORTCUTS } from "../state/shortcuts.ts";

export function HelpDialog({ onClose }: { onClose: () => void }) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => closeButton.current?.focus(), []);
  return (
    <div class="dialog-backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="help-title">
        <h2 id="help-title">Keyboard shortcuts</h2>
        <table>
          <tbody>
            {SHORTCUTS.map((shortcut) => (
              <tr key={shortcut.keys}>
                <th>
                  <kbd>{shortcut.keys}</kbd>
                </th>
                <td>{shortcut.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          Tab moves through sessions, files, the conversation and the message box in that order.
        </p>
        <button type="button" ref={closeButton} onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
