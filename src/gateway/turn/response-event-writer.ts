// Builds one response's stream of Responses events from engine output: output items opened and
// closed in order, sequence numbers, and snapshots (events never share objects that change later).
// Deltas that arrive in one tick leave as one event at the tick's end (never later), numbered then,
// so a burst of tokens costs one event, one replay entry and one frame instead of one each.
import type { ChatMessage, ToolCall } from "../../engines/engine.ts";
import type {
  IncompleteReason,
  ResponseFailure,
  ResponseObject,
  ResponseOutputItem,
  ResponseServerEvent,
  ResponseStatus,
  ResponseToolCallItem,
} from "../../protocol/responses-events.ts";
import {
  newContentItem,
  snapshotItem,
  writeContentDelta,
  writeContentItemAdded,
  writeContentItemDone,
  type ContentItemKind,
  type ContentItemSink,
  type OpenContentItem,
} from "./content-item-events.ts";
import type { GatewayClock } from "../gateway-clock.ts";
import { newId } from "../wire/new-id.ts";
import { customToolArguments, customToolInput, engineToolName } from "./request-tools.ts";
import type { ClientTool } from "../store/gateway-store.ts";
import { createTickEndFlush } from "../wire/tick-end-flush.ts";
import type {
  OpenCall,
  OpenMessage,
  OpenReasoning,
  WriterResumeState,
} from "./writer-resume-state.ts";

/** Hands an event on; `json` is its wire text when the writer already wrote it (written once, it
 * is reused by the replay log and the socket). */
export type EmitEvent = (event: ResponseServerEvent, json?: string) => void;

export interface ResponseEnding {
  status: Exclude<ResponseStatus, "in_progress">;
  incompleteReason?: IncompleteReason;
  error?: ResponseFailure;
  usage: ResponseObject["usage"] | undefined;
  sparkTimings: ResponseObject["spark_timings"];
}

/** Delta text held until the tick ends: the open message's or reasoning's, or one function
 * call's arguments. */
interface PendingDelta {
  target: "message" | "reasoning" | { callId: string };
  text: string;
}

export class ResponseEventWriter {
  private sequenceNumber = 0;
  private pending: PendingDelta | undefined;
  private readonly scheduleFlush: () => void;
  private readonly output: ResponseOutputItem[] = [];
  private openMessage: OpenMessage | undefined;
  private openReasoning: OpenReasoning | undefined;
  private readonly openCalls = new Map<string, OpenCall>();
  private readonly contentSink: ContentItemSink = {
    output: this.output,
    emit: (event) => this.emit(event),
    takeSequenceNumber: () => this.sequenceNumber++,
  };
  /** performance.now() of the first output event, for time to first token. */
  firstOutputAt: number | undefined;

  constructor(
    private readonly skeleton: ResponseObject,
    private readonly emit: EmitEvent,
    /** Engine-side tool names → the client's tools; a name not in it is a plain function. */
    private readonly clientTools: ReadonlyMap<string, ClientTool> = new Map(),
    /** Takes the time of the tick-end flushes, which run outside the caller's own timing. */
    clock?: GatewayClock,
    /** Continues a response whose first events another replica sent (started() is not called). */
    resumeFrom?: WriterResumeState,
  ) {
    this.scheduleFlush = createTickEndFlush(() => this.flushPending(), clock);
    if (resumeFrom !== undefined) {
      this.sequenceNumber = resumeFrom.nextSequenceNumber;
      this.output.push(...resumeFrom.output);
      this.openMessage = resumeFrom.openMessage;
      this.openReasoning = resumeFrom.openReasoning;
      for (const call of resumeFrom.openCalls) this.openCalls.set(call.item.call_id, call);
    }
  }

  get nextSequenceNumber(): number {
    return this.sequenceNumber;
  }

  /** response.created and response.in_progress: one snapshot of the skeleton, written once. */
  started(): void {
    const response = { ...this.skeleton };
    const responseJson = JSON.stringify(response);
    for (const type of ["response.created", "response.in_progress"] as const) {
      const sequenceNumber = this.sequenceNumber++;
      // The keys in the order of the event object, so the text is JSON.stringify's.
      const json = `{"type":"${type}","sequence_number":${sequenceNumber},"response":${responseJson}}`;
      this.emit({ type, sequence_number: sequenceNumber, response }, json);
    }
  }

  textDelta(delta: string): void {
    if (delta === "") return;
    // A call's held arguments go out before the new message's first event.
    if (this.openMessage === undefined) {
      this.flushPending();
      this.closeItem("reasoning", "completed");
    }
    const message = this.openMessage ?? this.openItem("message");
    message.text += delta;
    this.hold("message", delta);
  }

  /** The model's reasoning: its own output item, before the answer or call it leads to. */
  reasoningDelta(delta: string): void {
    if (delta === "") return;
    if (this.openReasoning === undefined) {
      this.flushPending();
      this.closeItem("message", "completed");
    }
    const reasoning = this.openReasoning ?? this.openItem("reasoning");
    reasoning.text += delta;
    this.hold("reasoning", delta);
  }

  toolCallStarted(callId: string, engineName: string): void {
    this.flushPending();
    this.closeItem("message", "completed");
    this.closeItem("reasoning", "completed");
    this.firstOutputAt ??= performance.now();
    const tool = this.clientTools.get(engineName);
    const name = tool?.name ?? engineName;
    const namespace = tool?.namespace === undefined ? {} : { namespace: tool.namespace };
    const item: ResponseToolCallItem =
      tool?.kind === "custom"
        ? {
            type: "custom_tool_call",
            id: newId("ctc_"),
            call_id: callId,
            name,
            input: "",
            status: "in_progress",
            ...namespace,
          }
        : {
            type: "function_call",
            id: newId("fc_"),
            call_id: callId,
            name,
            arguments: "",
            status: "in_progress",
            ...namespace,
          };
    const outputIndex = this.output.length;
    this.output.push(item);
    this.openCalls.set(callId, { item, outputIndex, engineArguments: "" });
    this.emit({
      type: "response.output_item.added",
      sequence_number: this.sequenceNumber++,
      output_index: outputIndex,
      item: { ...item },
    });
  }

  toolCallDelta(callId: string, delta: string): void {
    const call = this.openCalls.get(callId);
    if (call === undefined || delta === "") return;
    call.engineArguments += delta;
    // A custom call's input is a string inside the engine's JSON: it is sent whole at the end.
    if (call.item.type === "custom_tool_call") return;
    call.item.arguments += delta;
    this.hold({ callId }, delta);
  }

  toolCallEnded(callId: string, name: string, callArguments: string): void {
    this.flushPending();
    if (!this.openCalls.has(callId)) this.toolCallStarted(callId, name);
    const call = this.openCalls.get(callId);
    if (call === undefined) return;
    call.engineArguments = callArguments;
    this.closeCall(callId, call, "completed");
  }

  /** Sends held text and closes the open output items (their done events); finish() does it too
   * when it was not called first. */
  closeOutput(status: ResponseEnding["status"]): void {
    this.flushPending();
    const itemStatus = status === "completed" ? "completed" : "incomplete";
    this.closeItem("message", itemStatus);
    this.closeItem("reasoning", itemStatus);
    for (const [callId, call] of this.openCalls) this.closeCall(callId, call, itemStatus);
  }

  /** Closes whatever is open and emits the final lifecycle event; returns the final response. */
  finish(ending: ResponseEnding): ResponseObject {
    this.closeOutput(ending.status);
    const response: ResponseObject = {
      ...(ending.usage === undefined ? {} : { usage: ending.usage }),
      ...this.skeleton,
      status: ending.status,
      completed_at: ending.status === "completed" ? Math.floor(Date.now() / 1000) : null,
      output: this.output.map(snapshotItem),
      error: ending.error ?? null,
      incomplete_details:
        ending.incompleteReason === undefined ? null : { reason: ending.incompleteReason },
      spark_timings: ending.sparkTimings,
    };
    const type =
      ending.status === "completed"
        ? "response.completed"
        : ending.status === "failed"
          ? "response.failed"
          : "response.incomplete";
    this.emit({ type, sequence_number: this.sequenceNumber++, response });
    return response;
  }

  /** The output as the assistant's turn in the conversation, for the next response to build on. */
  reply(): ChatMessage | undefined {
    let content = "";
    let reasoning = "";
    const toolCalls: ToolCall[] = [];
    for (const item of this.output) {
      if (item.type === "message") content += item.content[0]?.text ?? "";
      else if (item.type === "reasoning") reasoning += item.content[0]?.text ?? "";
      else {
        const name = engineToolName(item.name, item.namespace);
        const callArguments =
          item.type === "function_call" ? item.arguments : customToolArguments(item.input);
        toolCalls.push({ id: item.call_id, name, arguments: callArguments });
      }
    }
    if (this.openMessage !== undefined) content += this.openMessage.text;
    if (this.openReasoning !== undefined) reasoning += this.openReasoning.text;
    if (content === "" && toolCalls.length === 0) return undefined;
    return {
      role: "assistant",
      content,
      ...(toolCalls.length === 0 ? {} : { toolCalls }),
      ...(reasoning === "" ? {} : { reasoning }),
    };
  }

  /** Adds delta text to what leaves at the tick's end; text for another item flushes first. */
  private hold(target: PendingDelta["target"], delta: string): void {
    if (this.pending !== undefined && !sameTarget(this.pending.target, target)) this.flushPending();
    if (this.pending === undefined) this.pending = { target, text: delta };
    else this.pending.text += delta;
    this.scheduleFlush();
  }

  private flushPending(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    if (pending.target === "message" || pending.target === "reasoning") {
      const open = pending.target === "message" ? this.openMessage : this.openReasoning;
      if (open !== undefined)
        writeContentDelta(pending.target, open, this.contentSink, pending.text);
      return;
    }
    const call = this.openCalls.get(pending.target.callId);
    if (call === undefined) return;
    this.emit({
      type: "response.function_call_arguments.delta",
      sequence_number: this.sequenceNumber++,
      item_id: call.item.id,
      output_index: call.outputIndex,
      delta: pending.text,
    });
  }

  private openItem(kind: ContentItemKind): OpenContentItem {
    this.firstOutputAt ??= performance.now();
    const open = newContentItem(kind, this.output.length);
    if (kind === "message") this.openMessage = open;
    else this.openReasoning = open;
    writeContentItemAdded(kind, open, this.contentSink);
    return open;
  }

  private closeItem(kind: ContentItemKind, status: "completed" | "incomplete"): void {
    const open = kind === "message" ? this.openMessage : this.openReasoning;
    if (open === undefined) return;
    if (kind === "message") this.openMessage = undefined;
    else this.openReasoning = undefined;
    writeContentItemDone(kind, open, status, this.contentSink);
  }

  private closeCall(callId: string, call: OpenCall, status: "completed" | "incomplete"): void {
    this.openCalls.delete(callId);
    const { item, outputIndex } = call;
    item.status = status;
    const location = { item_id: item.id, output_index: outputIndex };
    if (item.type === "custom_tool_call") {
      item.input = customToolInput(call.engineArguments);
      if (item.input !== "") {
        this.emit({
          type: "response.custom_tool_call_input.delta",
          sequence_number: this.sequenceNumber++,
          ...location,
          delta: item.input,
        });
      }
      this.emit({
        type: "response.custom_tool_call_input.done",
        sequence_number: this.sequenceNumber++,
        ...location,
        input: item.input,
      });
    } else {
      item.arguments = call.engineArguments;
      this.emit({
        type: "response.function_call_arguments.done",
        sequence_number: this.sequenceNumber++,
        ...location,
        name: item.name,
        arguments: item.arguments,
      });
    }
    this.emit({
      type: "response.output_item.done",
      sequence_number: this.sequenceNumber++,
      output_index: call.outputIndex,
      item: { ...call.item },
    });
  }
}

function sameTarget(first: PendingDelta["target"], second: PendingDelta["target"]): boolean {
  if (typeof first === "string" || typeof second === "string") return first === second;
  return first.callId === second.callId;
}
