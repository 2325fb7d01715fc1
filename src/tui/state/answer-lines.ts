// Streams answer text into the transcript a logical line at a time: each complete line (up to a
// newline) becomes a finished item, and only the line being written stays live. Lines are never
// cut at the terminal's width: the terminal wraps them, so they reflow when it is resized and
// copy out whole.
import type { SessionViewState } from "./session-view.ts";
import { finishLive, holdTableLine, settleAnswerLine, takeId } from "./transcript-draft.ts";
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
  let { heldTable, ...line } = live;
  for (;;) {
    const newline = rest.indexOf("\n");
    if (newline >= 0 && newline <= LONGEST_LIVE_LINE) {
      const { finished, next } = settleAnswerLine({ ...line, text: rest.slice(0, newline) });
      rest = rest.slice(newline + 1);
      // A table's rows are held and finished together, so its columns can line up.
      const table = holdTableLine(heldTable, finished);
      if (table !== undefined) {
        heldTable = table;
        line = newLine(draft, { continued: true, ...next });
        continue;
      }
      if (heldTable !== undefined) draft.finished.push(heldTable);
      heldTable = undefined;
      const isBlank = finished.block !== "fence" && finished.text === "" && !finished.interrupted;
      if (finished.block === "fence") {
        const { blankLinesBefore: _passedOn, ...fence } = finished;
        draft.finished.push(fence);
      } else if (!isBlank) draft.finished.push(finished);
      const blankLinesBefore = carriedBlankLines(finished, isBlank);
      line = newLine(draft, {
        // The answer's "● " goes on its first line that is pushed.
        continued: line.continued || !isBlank,
        ...next,
        ...(blankLinesBefore === 0 ? {} : { blankLinesBefore }),
      });
    } else if (rest.length > LONGEST_LIVE_LINE) {
      const space = rest.lastIndexOf(" ", LONGEST_LIVE_LINE);
      const cut = space > 0 ? space + 1 : LONGEST_LIVE_LINE;
      const { block, code } = line;
      if (heldTable !== undefined) draft.finished.push(heldTable);
      heldTable = undefined;
      draft.finished.push({ ...line, text: rest.slice(0, cut) });
      rest = rest.slice(cut);
      line = {
        ...newLine(draft, { continued: true, block, ...(code === undefined ? {} : { code }) }),
        restOfLine: true,
      };
    } else break;
  }
  draft.live = { ...line, text: rest, ...(heldTable === undefined ? {} : { heldTable }) };
}

/**
 * Blank lines are not items of their own but rows above the next shown line: Ink writes nothing
 * for a frame whose new static output is only an empty row, so a blank line finished alone (as
 * after a closing fence) vanished. A fence, which shows nothing, passes its blank rows on too.
 */
function carriedBlankLines(line: AssistantLine, isBlank: boolean): number {
  const before = line.blankLinesBefore ?? 0;
  if (line.block === "fence") return before;
  return isBlank ? before + 1 : 0;
}

function newLine(
  draft: SessionViewState,
  start: Pick<AssistantLine, "continued" | "block" | "code">,
): AssistantLine {
  return { kind: "assistant", id: takeId(draft), text: "", interrupted: false, ...start };
}
