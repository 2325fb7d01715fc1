// Draws the whole screen again once a resize that changed the width has settled. A terminal
// reflows what it shows when its width changes (tmux, VTE, kitty, iTerm2), and some keep the
// cursor's row while doing it, pushing the rows that a shrink added above into the scrollback:
// no cursor movement reaches them, so Ink's live region (the streaming answer, the input box,
// the status line) left copies of itself there, more of them the closer it was to the top and
// the faster the answer streamed (Ink can also draw a frame at the old width between the
// terminal's change and Node's SIGWINCH). Gemini CLI and Claude Code repaint the same way.
import { useEffect, useRef } from "react";

/** How long the width must stay the same before the screen is drawn again. */
export const RESIZE_SETTLE_MS = 150;

/**
 * Calls `repaint` once the terminal's width has stayed the same for `settleMs` after resizes that
 * changed it, even back to where it was (a height change reflows nothing).
 */
export function useResizeRepaint(
  stdout: NodeJS.WriteStream,
  repaint: () => void,
  settleMs = RESIZE_SETTLE_MS,
): void {
  const latestRepaint = useRef(repaint);
  latestRepaint.current = repaint;
  useEffect(() => {
    if (stdout.isTTY !== true) return;
    let lastColumns = stdout.columns;
    let widthChanged = false;
    let timer: NodeJS.Timeout | undefined;
    const onResize = (): void => {
      // Back to the width painted at still needs a repaint: the widths between reflowed the screen.
      if (stdout.columns !== lastColumns) widthChanged = true;
      lastColumns = stdout.columns;
      if (!widthChanged) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        widthChanged = false;
        latestRepaint.current();
      }, settleMs);
    };
    stdout.on("resize", onResize);
    return () => {
      clearTimeout(timer);
      stdout.off("resize", onResize);
    };
  }, [stdout, settleMs]);
}
