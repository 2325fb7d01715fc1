// The engine events for a chat format's output as it streams: each parse of the output so far is
// compared with the last (as llama-server's common_chat_msg_diff does) and what grew becomes text,
// reasoning and argument deltas; each call starts once its name is known, with the id its format
// gave it (Kimi's functions.x:0, Mistral's 9 characters) or one made here, kept to its end.
import type { EngineEvent } from "../../engine.ts";
import type { ParsedChatMessage } from "./chat-format.ts";

interface StreamedCall {
  id: string;
  name: string;
  arguments: string;
}

export class ParsedMessageEvents {
  private content = "";
  private reasoning = "";
  private readonly calls: StreamedCall[] = [];

  constructor(private readonly newToolCallId: () => string) {}

  get callCount(): number {
    return this.calls.length;
  }

  /** Events for a parse of the output so far (partial). */
  update(parsed: ParsedChatMessage): EngineEvent[] {
    const events: EngineEvent[] = [];
    // Text that a later parse takes back (it was the start of a call's marker) cannot be unsent;
    // llama.cpp's partial parse holds such text back, so only growth is streamed.
    const reasoningDelta = grownBy(this.reasoning, parsed.reasoning);
    if (reasoningDelta !== undefined && reasoningDelta !== "") {
      this.reasoning = parsed.reasoning;
      events.push({ type: "reasoning-delta", text: reasoningDelta });
    }
    const contentDelta = grownBy(this.content, parsed.content);
    if (contentDelta !== undefined && contentDelta !== "") {
      this.content = parsed.content;
      events.push({ type: "text-delta", text: contentDelta });
    }
    parsed.toolCalls.forEach((call, index) => {
      let streamed = this.calls[index];
      if (streamed === undefined) {
        if (call.name === "") return;
        streamed = {
          id: call.id === "" ? this.newToolCallId() : call.id,
          name: call.name,
          arguments: "",
        };
        this.calls.push(streamed);
        events.push({ type: "tool-call-start", id: streamed.id, name: streamed.name });
      }
      const argumentsDelta = grownBy(streamed.arguments, call.arguments);
      if (argumentsDelta !== undefined && argumentsDelta !== "") {
        streamed.arguments = call.arguments;
        events.push({ type: "tool-call-delta", id: streamed.id, argumentsDelta });
      }
    });
    return events;
  }

  /**
   * Events for the final parse: what remains, then each call's end with its whole arguments;
   * `lastCallCut`: the output ended inside its last call (the token limit), which gets no end.
   */
  finish(parsed: ParsedChatMessage, options: { lastCallCut?: boolean } = {}): EngineEvent[] {
    const events = this.update(parsed);
    const ended = options.lastCallCut === true ? this.calls.slice(0, -1) : this.calls;
    ended.forEach((streamed, index) => {
      const final = parsed.toolCalls[index]?.arguments ?? streamed.arguments;
      events.push({
        type: "tool-call-end",
        id: streamed.id,
        name: streamed.name,
        arguments: final === "" ? "{}" : final,
      });
    });
    return events;
  }
}

/** What `next` adds to `previous`, or undefined when it does not extend it. */
function grownBy(previous: string, next: string): string | undefined {
  return next.startsWith(previous) ? next.slice(previous.length) : undefined;
}
