// Streams answer text into the transcript a logical line at a time: each complete line (up to a
// newline) becomes a finished item, and only the line being written stays live. Lines are never
// cut at the terminal's width: the terminal wraps them, so they reflow when it is resized and
// copy out whole.
import type { SessionViewState } from "./session-view-state.ts";
import { finishLive, settleAnswerLine, takeId } from "./transcript-draft.ts";
import type { AssistantLine } from "./transcript-item.ts";

/**
 * A line longer than this is moved to the finished items in pieces (at a space), so one endless
 * paragraph does not make every frame measure and redraw all of it (bench scenario 7 streams
 * 50,000 words without a newline): about 8 rows of a 120-column terminal, longer than the
 * paragraphs and code lines models write, which therefore never get a break of the UI's own.
 */
export const LONGEST_LIVE_LINE = 1000;

export function appendAnswerText(draft: SessionViewState, text: string): void {
  let live = draft.live;
  if (live?.kind !== "assistant") {
    finishLive(draft);
    live = newLine(draft, { continued: false, block: "prose" });
  }
  let rest = live.text + text;
  let line: AssistantLine = live;
  for (;;) {
    const newline = rest.indexOf("\n");
    if (newline >= 0 && newline <= LONGEST_LIVE_LINE) {
      const { finished, next } = settleAnswerLine({ ...line, text: rest.slice(0, newline) });
      draft.finished.push(finished);
      rest = rest.slice(newline + 1);
      line = newLine(draft, { continued: true, ...next });
    } else if (rest.length > LONGEST_LIVE_LINE) {
      const space = rest.lastIndexOf(" ", LONGEST_LIVE_LINE);
      const cut = space > 0 ? space + 1 : LONGEST_LIVE_LINE;
      const { block, code } = line;
      draft.finished.push({ ...line, text: rest.slice(0, cut) });
      rest = rest.slice(cut);
      line = {
        ...newLine(draft, { continued: true, block, ...(code === undefined ? {} : { code }) }),
        restOfLine: true,
      };
    } else break;
  }
  draft.live = { ...line, text: rest };
}

function newLine(
  draft: SessionViewState,
  start: Pick<AssistantLine, "continued" | "block" | "code">,
): AssistantLine {
  return { kind: "assistant", id: takeId(draft), text: "", interrupted: false, ...start };
}
