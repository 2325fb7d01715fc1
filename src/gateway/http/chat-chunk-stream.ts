// The streamed body of one chat completion: `data:` chunks over server-sent events. Content that
// arrives in one tick leaves as one chunk at the tick's end (never later), written from a prepared
// prefix rather than by JSON.stringify walking an object, and one tick's chunks leave in one
// system call (the response is corked for the tick).
import type { ServerResponse } from "node:http";
import type { ChatCompletionChunk, ChatFinishReason } from "../../protocol/chat-completions.ts";
import type { GatewayClock } from "../gateway-clock.ts";
import { createTickCorker, type TickCorker } from "../wire/tick-corker.ts";
import { createTickEndFlush } from "../wire/tick-end-flush.ts";

type ChunkDelta = ChatCompletionChunk["choices"][number]["delta"];
/** The delta's text field: the answer, or the model's reasoning (llama-server's and DeepSeek's). */
type TextField = "content" | "reasoning_content";

export class ChatChunkStream {
  private pendingContent = "";
  private pendingField: TextField = "content";
  private readonly scheduleFlush: () => void;
  private readonly corker: TickCorker;
  /** A content chunk's text up to its field's name (the keys in JSON.stringify's order). */
  private readonly contentPrefix: string;

  constructor(
    private readonly response: ServerResponse,
    private readonly base: Pick<ChatCompletionChunk, "id" | "created" | "model">,
    /** Takes the time of the tick-end flushes, which run outside the caller's own timing. */
    clock: GatewayClock,
  ) {
    this.scheduleFlush = createTickEndFlush(() => this.flushContent(), clock);
    this.corker = createTickCorker(response);
    this.contentPrefix =
      `data: {"id":${JSON.stringify(base.id)},"object":"chat.completion.chunk","created":${base.created}` +
      `,"model":${JSON.stringify(base.model)},"choices":[{"index":0,"delta":{`;
  }

  /** Holds content until the tick ends; it leaves then, merged with the rest of the tick's. */
  content(text: string, field: TextField = "content"): void {
    if (text === "") return;
    if (field !== this.pendingField) {
      this.flushContent();
      this.pendingField = field;
    }
    this.pendingContent += text;
    this.scheduleFlush();
  }

  /** A chunk other than content: held content goes first, so the order is kept. */
  chunk(delta: ChunkDelta, finishReason: ChatFinishReason | null = null): void {
    this.flushContent();
    const payload: ChatCompletionChunk = {
      id: this.base.id,
      object: "chat.completion.chunk",
      created: this.base.created,
      model: this.base.model,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    };
    this.write(`data: ${JSON.stringify(payload)}\n\n`);
  }

  /** Any other `data:` line (the usage chunk); held content goes first. */
  data(value: unknown): void {
    this.flushContent();
    this.write(`data: ${JSON.stringify(value)}\n\n`);
  }

  /** Sends held content now (before the stream ends or fails). */
  flushContent(): void {
    const text = this.pendingContent;
    if (text === "") return;
    this.pendingContent = "";
    this.write(
      `${this.contentPrefix}"${this.pendingField}":${JSON.stringify(text)}},"finish_reason":null,"logprobs":null}]}\n\n`,
    );
  }

  private write(text: string): void {
    if (this.response.destroyed) return;
    this.corker.hold();
    this.response.write(text);
  }
}
