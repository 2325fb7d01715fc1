// Where a response's event writer stood after a run of its events: the output items so far, the
// item still open, and the next sequence number. A replica that continues a response another
// replica started rebuilds it from the stored event log, so numbering goes on without gap or repeat.
import type {
  ResponseOutputItem,
  ResponseServerEvent,
  ResponseToolCallItem,
} from "../../protocol/responses-events.ts";
import type { OpenContentItem } from "./content-item-events.ts";

/** The message being streamed (`output_text` content). */
export type OpenMessage = OpenContentItem;

/** The reasoning item being streamed (`reasoning_text` content, as open models stream it). */
export type OpenReasoning = OpenContentItem;

/** A tool call being streamed. */
export interface OpenCall {
  item: ResponseToolCallItem;
  outputIndex: number;
  /** The engine's JSON arguments so far (a custom call's input is taken from them at the end). */
  engineArguments: string;
}

export interface WriterResumeState {
  nextSequenceNumber: number;
  output: ResponseOutputItem[];
  openMessage: OpenMessage | undefined;
  openReasoning?: OpenReasoning | undefined;
  openCalls: OpenCall[];
  /** The final event was among the events: there is nothing to continue. */
  finished: boolean;
}

/** Whether another replica can continue from here: only text is continued, so not once a tool
 * call (or any item but a message) was under way. */
export function isContinuable(state: WriterResumeState): boolean {
  return state.openCalls.length === 0 && state.output.every((item) => item.type === "message");
}

export function writerResumeState(events: readonly ResponseServerEvent[]): WriterResumeState {
  const output: ResponseOutputItem[] = [];
  let openMessage: OpenMessage | undefined;
  let openReasoning: OpenReasoning | undefined;
  const openCalls = new Map<string, OpenCall>();
  let nextSequenceNumber = 0;
  let finished = false;
  for (const event of events) {
    nextSequenceNumber = event.sequence_number + 1;
    switch (event.type) {
      case "response.output_item.added": {
        const item = structuredClone(event.item);
        output[event.output_index] = item;
        if (item.type === "message")
          openMessage = { id: item.id, outputIndex: event.output_index, text: "" };
        else if (item.type === "reasoning")
          openReasoning = { id: item.id, outputIndex: event.output_index, text: "" };
        else openCalls.set(item.id, openCallOf(item, event.output_index));
        break;
      }
      case "response.output_text.delta":
        if (openMessage?.id === event.item_id) openMessage.text += event.delta;
        break;
      case "response.reasoning_text.delta":
        if (openReasoning?.id === event.item_id) openReasoning.text += event.delta;
        break;
      case "response.function_call_arguments.delta": {
        const call = openCalls.get(event.item_id);
        if (call?.item.type === "function_call") {
          call.item.arguments += event.delta;
          call.engineArguments += event.delta;
        }
        break;
      }
      case "response.output_item.done":
        output[event.output_index] = structuredClone(event.item);
        if (openMessage?.id === event.item.id) openMessage = undefined;
        if (openReasoning?.id === event.item.id) openReasoning = undefined;
        openCalls.delete(event.item.id);
        break;
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        finished = true;
        break;
      default:
        break;
    }
  }
  return {
    nextSequenceNumber,
    output,
    openMessage,
    openReasoning,
    openCalls: [...openCalls.values()],
    finished,
  };
}

/** The text the response has produced so far (closed messages and the open one). */
export function textSoFar(state: WriterResumeState): string {
  let text = "";
  for (const item of state.output) {
    if (item.type === "message" && item.id !== state.openMessage?.id)
      text += item.content[0]?.text ?? "";
  }
  return text + (state.openMessage?.text ?? "");
}

function openCallOf(item: ResponseToolCallItem, outputIndex: number): OpenCall {
  return {
    item,
    outputIndex,
    engineArguments: item.type === "function_call" ? item.arguments : "",
  };
}
