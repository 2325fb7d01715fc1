// A turn's Responses events as Anthropic's server-sent events: message_start and a ping when the
// turn starts, one content block per output item (text, thinking, tool_use) with its deltas,
// message_delta (stop_reason, usage) and message_stop at the end, or an `error` event. A ping
// also goes out while the engine is silent (a long prefill), so proxies keep the stream open.
import type { ServerResponse } from "node:http";
import type { AnthropicStreamEvent } from "../../../protocol/anthropic-messages.ts";
import type { ResponseObject, ResponseServerEvent } from "../../../protocol/responses-events.ts";
import type { SparkError } from "../../../protocol/spark-error.ts";
import { createTickCorker, type TickCorker } from "../../wire/tick-corker.ts";
import { startEventStream } from "../sse-transport.ts";
import { describeAnthropicError } from "./anthropic-error.ts";
import {
  anthropicUsage,
  stopReasonOf,
  THINKING_SIGNATURE,
  type MessageIdentity,
} from "./anthropic-message.ts";

export interface AnthropicStreamOptions extends MessageIdentity {
  /** Spark's estimate of the input, for message_start (the engine's count comes at the end). */
  estimatedInputTokens: number;
  /** Unsent bytes past which the client is dropped rather than buffered for. */
  hardBytes: number;
  onDrop: () => void;
  /** How long the engine may be silent before a ping is sent. */
  pingIntervalMs?: number;
}

interface OpenBlock {
  index: number;
  kind: "text" | "thinking" | "tool_use";
}

const DEFAULT_PING_INTERVAL_MS = 10_000;

export class AnthropicStreamWriter {
  private started = false;
  private ended = false;
  private nextIndex = 0;
  /** Responses output_index → the block it streams into; undefined: a block not sent (reasoning
   * when the client did not ask for thinking). */
  private readonly blocks = new Map<number, OpenBlock | undefined>();
  private readonly corker: TickCorker;
  private wroteSincePing = false;
  private pingTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly response: ServerResponse,
    private readonly options: AnthropicStreamOptions,
  ) {
    this.corker = createTickCorker(response);
  }

  /** One event of the turn (ResponseEventWriter's), as Anthropic events. */
  accept(event: ResponseServerEvent): void {
    switch (event.type) {
      case "response.created":
        this.start();
        return;
      case "response.output_item.added":
        this.openBlock(event.output_index, event.item);
        return;
      case "response.output_text.delta":
        this.delta(event.output_index, { type: "text_delta", text: event.delta });
        return;
      case "response.reasoning_text.delta":
        this.delta(event.output_index, { type: "thinking_delta", thinking: event.delta });
        return;
      case "response.function_call_arguments.delta":
        this.delta(event.output_index, { type: "input_json_delta", partial_json: event.delta });
        return;
      case "response.output_item.done":
        this.closeBlock(event.output_index);
        return;
      case "response.completed":
      case "response.incomplete":
        this.finish(event.response);
        return;
      // A failure reaches the client as the error the turn returns (see fail).
      default:
        return;
    }
  }

  /** The turn failed: an `error` event ends the stream (a reply, when nothing was sent yet, is
   * the caller's). */
  fail(error: SparkError): void {
    if (this.ended) return;
    this.start();
    this.write(describeAnthropicError(error).body);
    this.end();
  }

  get hasStarted(): boolean {
    return this.started;
  }

  /** Ends a stream the turn did not finish (the client went away): no more writes, no timer. */
  close(): void {
    clearInterval(this.pingTimer);
    this.pingTimer = undefined;
    this.ended = true;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    startEventStream(this.response);
    this.write({
      type: "message_start",
      message: {
        id: this.options.id,
        type: "message",
        role: "assistant",
        model: this.options.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: this.options.estimatedInputTokens,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 0,
        },
      },
    });
    this.write({ type: "ping" });
    const interval = this.options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
    this.pingTimer = setInterval(() => {
      if (!this.wroteSincePing) this.write({ type: "ping" });
      this.wroteSincePing = false;
    }, interval);
    this.pingTimer.unref();
  }

  private openBlock(outputIndex: number, item: { type: string; call_id?: string; name?: string }) {
    let block: OpenBlock | undefined;
    if (item.type === "message") block = { index: this.nextIndex++, kind: "text" };
    else if (item.type === "reasoning" && this.options.thinking)
      block = { index: this.nextIndex++, kind: "thinking" };
    else if (item.type === "function_call") block = { index: this.nextIndex++, kind: "tool_use" };
    this.blocks.set(outputIndex, block);
    if (block === undefined) return;
    const contentBlock =
      block.kind === "text"
        ? { type: "text" as const, text: "" }
        : block.kind === "thinking"
          ? { type: "thinking" as const, thinking: "", signature: "" }
          : { type: "tool_use" as const, id: item.call_id ?? "", name: item.name ?? "", input: {} };
    this.write({ type: "content_block_start", index: block.index, content_block: contentBlock });
  }

  private delta(
    outputIndex: number,
    delta: Extract<AnthropicStreamEvent, { type: "content_block_delta" }>["delta"],
  ): void {
    const block = this.blocks.get(outputIndex);
    if (block === undefined) return;
    this.write({ type: "content_block_delta", index: block.index, delta });
  }

  private closeBlock(outputIndex: number): void {
    const block = this.blocks.get(outputIndex);
    this.blocks.delete(outputIndex);
    if (block === undefined) return;
    // Anthropic sends a thinking block's signature last; its SDKs and Claude Code keep it.
    if (block.kind === "thinking")
      this.write({
        type: "content_block_delta",
        index: block.index,
        delta: { type: "signature_delta", signature: THINKING_SIGNATURE },
      });
    this.write({ type: "content_block_stop", index: block.index });
  }

  private finish(response: ResponseObject): void {
    if (this.ended) return;
    this.start();
    for (const outputIndex of [...this.blocks.keys()]) this.closeBlock(outputIndex);
    this.write({
      type: "message_delta",
      delta: { stop_reason: stopReasonOf(response), stop_sequence: null },
      usage: anthropicUsage(response.usage),
    });
    this.write({ type: "message_stop" });
    this.end();
  }

  private end(): void {
    this.close();
    this.corker.release();
    this.response.end();
  }

  private write(event: AnthropicStreamEvent): void {
    if (this.ended || this.response.destroyed) return;
    this.wroteSincePing = true;
    this.corker.hold();
    this.response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    // A client that cannot keep up is dropped rather than buffered for without bound.
    if (this.response.writableLength > this.options.hardBytes) {
      this.close();
      this.options.onDrop();
      this.response.destroy();
    }
  }
}
