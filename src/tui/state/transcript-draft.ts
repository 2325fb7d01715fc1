// Helpers that edit a session view being folded (the reducer's draft): ids, appending finished
// items, and moving the live item into them.
import { closesFence, readFence } from "../../protocol/transcript/index.ts";
import { isTableLine } from "./answer-table.ts";
import type { SessionViewState } from "./session-view.ts";
import type { AssistantLine, NewTranscriptItem } from "./transcript-item.ts";

export function takeId(draft: SessionViewState): number {
  const id = draft.nextItemId;
  draft.nextItemId += 1;
  return id;
}

export function append(draft: SessionViewState, item: NewTranscriptItem): void {
  draft.finished.push({ ...item, id: takeId(draft) });
}

/** Moves the live item, if any, to the finished items (an empty answer piece is dropped). */
export function finishLive(draft: SessionViewState): void {
  const live = draft.live;
  if (live === undefined) return;
  draft.live = undefined;
  if (live.kind !== "assistant") {
    draft.finished.push(live);
    return;
  }
  const { heldTable, ...line } = live;
  if (heldTable !== undefined) {
    const table = holdTableLine(heldTable, line);
    if (table !== undefined) {
      draft.finished.push({ ...table, interrupted: line.interrupted });
      return;
    }
    draft.finished.push(heldTable);
  }
  if (line.text === "" && !line.interrupted) return;
  draft.finished.push(settleAnswerLine(line).finished);
}

/**
 * A finished answer line that is a table row joins the table held above it (or starts one): the
 * table, with the line added. Undefined when the line is no table row (it ends a held table).
 */
export function holdTableLine(
  heldTable: AssistantLine | undefined,
  line: AssistantLine,
): AssistantLine | undefined {
  if (line.block !== "prose" || line.restOfLine === true || !isTableLine(line.text))
    return undefined;
  if (heldTable === undefined) return { ...line, block: "table" };
  return { ...heldTable, text: `${heldTable.text}\n${line.text}` };
}

/**
 * A finished answer line with its Markdown block decided, and the block the next line is in: a
 * fence opens or closes a code block; other lines keep the block they are in.
 */
export function settleAnswerLine(line: AssistantLine): {
  finished: AssistantLine;
  next: Pick<AssistantLine, "block" | "code">;
} {
  const stay = { block: line.block, ...(line.code === undefined ? {} : { code: line.code }) };
  if (line.restOfLine === true) return { finished: line, next: stay };
  if (line.block === "code" && line.code !== undefined) {
    if (!closesFence(line.text, line.code.fence)) return { finished: line, next: stay };
    return { finished: { ...line, block: "fence" }, next: { block: "prose" } };
  }
  const fence = readFence(line.text);
  if (fence === undefined) return { finished: line, next: stay };
  const code = { language: fence.language, fence: fence.marker };
  return { finished: { ...line, block: "fence", code }, next: { block: "code", code } };
}
