// The events of an output item that streams one content part: an assistant message's `output_text`
// or a reasoning item's `reasoning_text`, from opened to closed, written in one place for both kinds
// so they keep the same shape. When an item opens or closes is the response writer's decision.
import type {
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseReasoningItem,
  ResponseReasoningText,
  ResponseServerEvent,
} from "../../protocol/responses-events.ts";
import { newId } from "../wire/new-id.ts";

const NO_LOGPROBS: never[] = [];

export type ContentItemKind = "message" | "reasoning";

/** A message or reasoning item being streamed: its text so far. */
export interface OpenContentItem {
  id: string;
  outputIndex: number;
  text: string;
}

/** The response's output and event stream, as the writer lends them. */
export interface ContentItemSink {
  output: ResponseOutputItem[];
  emit(event: ResponseServerEvent): void;
  /** The next sequence number, taken (each event takes its own as it is written). */
  takeSequenceNumber(): number;
}

export function newContentItem(kind: ContentItemKind, outputIndex: number): OpenContentItem {
  return { id: newId(kind === "message" ? "msg_" : "rs_"), outputIndex, text: "" };
}

/** Adds the item, in progress and empty, to the output: output_item.added, content_part.added. */
export function writeContentItemAdded(
  kind: ContentItemKind,
  open: OpenContentItem,
  sink: ContentItemSink,
): void {
  const item = contentItem(kind, open.id, "in_progress", []);
  sink.output.push(item);
  sink.emit({
    type: "response.output_item.added",
    sequence_number: sink.takeSequenceNumber(),
    output_index: open.outputIndex,
    item: snapshotItem(item),
  });
  sink.emit({
    type: "response.content_part.added",
    sequence_number: sink.takeSequenceNumber(),
    item_id: open.id,
    output_index: open.outputIndex,
    content_index: 0,
    part: contentPart(kind, ""),
  });
}

export function writeContentDelta(
  kind: ContentItemKind,
  open: OpenContentItem,
  sink: ContentItemSink,
  delta: string,
): void {
  const location = { item_id: open.id, output_index: open.outputIndex, content_index: 0 };
  if (kind === "reasoning") {
    const sequence_number = sink.takeSequenceNumber();
    sink.emit({ type: "response.reasoning_text.delta", sequence_number, ...location, delta });
    return;
  }
  sink.emit({
    type: "response.output_text.delta",
    sequence_number: sink.takeSequenceNumber(),
    ...location,
    delta,
    logprobs: NO_LOGPROBS,
  });
}

/** Puts the finished item in its place in the output: the text's done, content_part.done and
 * output_item.done. */
export function writeContentItemDone(
  kind: ContentItemKind,
  open: OpenContentItem,
  status: "completed" | "incomplete",
  sink: ContentItemSink,
): void {
  const part = contentPart(kind, open.text);
  const item = contentItem(kind, open.id, status, [part]);
  sink.output[open.outputIndex] = item;
  const location = { item_id: open.id, output_index: open.outputIndex, content_index: 0 };
  if (kind === "reasoning") {
    const sequence_number = sink.takeSequenceNumber();
    sink.emit({
      type: "response.reasoning_text.done",
      sequence_number,
      ...location,
      text: open.text,
    });
  } else {
    sink.emit({
      type: "response.output_text.done",
      sequence_number: sink.takeSequenceNumber(),
      ...location,
      text: open.text,
      logprobs: NO_LOGPROBS,
    });
  }
  sink.emit({
    type: "response.content_part.done",
    sequence_number: sink.takeSequenceNumber(),
    ...location,
    part: { ...part },
  });
  sink.emit({
    type: "response.output_item.done",
    sequence_number: sink.takeSequenceNumber(),
    output_index: open.outputIndex,
    item: snapshotItem(item),
  });
}

/** A copy that later changes to the item do not reach (events are kept and replayed). */
export function snapshotItem(item: ResponseOutputItem): ResponseOutputItem {
  if (item.type === "message")
    return { ...item, content: item.content.map((part) => ({ ...part })) };
  if (item.type === "reasoning")
    return { ...item, summary: [], content: item.content.map((part) => ({ ...part })) };
  return { ...item };
}

function contentPart(
  kind: ContentItemKind,
  text: string,
): ResponseOutputText | ResponseReasoningText {
  return kind === "message"
    ? { type: "output_text", text, annotations: [], logprobs: [] }
    : { type: "reasoning_text", text };
}

function contentItem(
  kind: ContentItemKind,
  id: string,
  status: ResponseOutputMessage["status"],
  content: (ResponseOutputText | ResponseReasoningText)[],
): ResponseOutputMessage | ResponseReasoningItem {
  // The parts are of the item's kind: contentPart made them for it.
  return kind === "message"
    ? { type: "message", id, role: "assistant", status, content: content as ResponseOutputText[] }
    : { type: "reasoning", id, summary: [], content: content as ResponseReasoningText[], status };
}
