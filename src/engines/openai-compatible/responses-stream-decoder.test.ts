// The Responses decoder on event payloads shaped like OpenAI's (the SDK's ResponseStreamEvent):
// how each ending maps, usage, function calls by item id, stop sequences held back across deltas.
import { describe, expect, it } from "vitest";
import { ResponsesStreamDecoder } from "./responses-stream-decoder.ts";

const context = { baseUrl: "https://api.openai.com/v1", model: "gpt-5.3-codex" };
const delta = (text: string) =>
  JSON.stringify({
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 0,
    content_index: 0,
    delta: text,
  });
const usage = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 8 },
  output_tokens: 3,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};

describe("ResponsesStreamDecoder", () => {
  it("maps text, usage and completed", () => {
    const decoder = new ResponsesStreamDecoder(context);
    const events = [
      delta("Hel"),
      delta("lo"),
      JSON.stringify({ type: "response.completed", response: { status: "completed", usage } }),
    ].flatMap((data) => decoder.decode(data));
    expect(events).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
    ]);
    expect(decoder.end().finish).toEqual({ reason: "stop" });
    expect(decoder.usage).toEqual({ inputTokens: 12, outputTokens: 3, cachedInputTokens: 8 });
  });

  it("incomplete for max_output_tokens is length", () => {
    const decoder = new ResponsesStreamDecoder(context);
    decoder.decode(
      JSON.stringify({
        type: "response.incomplete",
        response: {
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
          usage,
        },
      }),
    );
    expect(decoder.end().finish).toEqual({ reason: "length" });
  });

  it("function calls arrive by item id and end with their arguments", () => {
    const decoder = new ResponsesStreamDecoder(context);
    const item = {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: "read_file",
      arguments: "",
    };
    const events = [
      JSON.stringify({ type: "response.output_item.added", output_index: 0, item }),
      JSON.stringify({
        type: "response.function_call_arguments.delta",
        item_id: "fc_1",
        output_index: 0,
        delta: '{"path":',
      }),
      JSON.stringify({
        type: "response.function_call_arguments.delta",
        item_id: "fc_1",
        output_index: 0,
        delta: '"a.ts"}',
      }),
      JSON.stringify({
        type: "response.output_item.done",
        output_index: 0,
        item: { ...item, arguments: '{"path":"a.ts"}', status: "completed" },
      }),
      JSON.stringify({ type: "response.completed", response: { status: "completed", usage } }),
    ].flatMap((data) => decoder.decode(data));
    expect(events.map((event) => event.type)).toEqual([
      "tool-call-start",
      "tool-call-delta",
      "tool-call-delta",
      "tool-call-end",
    ]);
    expect(events.at(-1)).toEqual({
      type: "tool-call-end",
      id: "call_1",
      name: "read_file",
      arguments: '{"path":"a.ts"}',
    });
    expect(decoder.end().finish).toEqual({ reason: "tool_calls" });
  });

  it("a stop sequence split across deltas cuts the text before it", () => {
    const decoder = new ResponsesStreamDecoder(context, ["END"]);
    const text = [
      delta("one E"),
      delta("ND two"),
      JSON.stringify({ type: "response.completed", response: { usage } }),
    ]
      .flatMap((data) => decoder.decode(data))
      .map((event) => (event.type === "text-delta" ? event.text : ""))
      .join("");
    expect(text).toBe("one ");
    expect(decoder.end().finish).toEqual({ reason: "stop" });
  });

  it("failed responses and error events are typed errors; a cut stream is a protocol_error", () => {
    const failed = new ResponsesStreamDecoder(context);
    expect(() =>
      failed.decode(
        JSON.stringify({
          type: "response.failed",
          response: { status: "failed", error: { code: "server_error", message: "boom" } },
        }),
      ),
    ).toThrow(/boom/);
    const errored = new ResponsesStreamDecoder(context);
    expect(() =>
      errored.decode(
        JSON.stringify({
          type: "error",
          code: "rate_limit_exceeded",
          message: "slow down",
          param: null,
        }),
      ),
    ).toThrow(/slow down/);
    const cut = new ResponsesStreamDecoder(context);
    cut.decode(delta("partial"));
    expect(cut.end().finish.error?.code).toBe("protocol_error");
  });
});
