// The input line as state plus a ref: keys that arrive faster than React renders (a paste, tmux's
// send-keys) each edit the latest text, never a stale render's copy.
import { useCallback, useRef, useState } from "react";
import { editLine, emptyLine, type LineEdit, type LineState } from "../state/line-editor.ts";

export interface LineEditor {
  /** As last rendered. */
  line: LineState;
  /** As of the last key, rendered or not. */
  current: () => LineState;
  edit: (edit: LineEdit) => void;
}

export function useLineEditor(): LineEditor {
  const latest = useRef(emptyLine);
  const [line, setLine] = useState(emptyLine);
  const edit = useCallback((change: LineEdit) => {
    latest.current = editLine(latest.current, change);
    setLine(latest.current);
  }, []);
  const current = useCallback(() => latest.current, []);
  return { line, current, edit };
}
