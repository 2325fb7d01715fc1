// Input items to engine messages: roles, content parts, function calls merged into the assistant
// turn, their outputs as tool messages, and clear refusals for what a text engine cannot take.
import { describe, expect, it } from "vitest";
import { inputToMessages } from "./conversation.ts";

describe("inputToMessages", () => {
  it("maps messages, function calls and their outputs", () => {
    const messages = inputToMessages([
      { role: "developer", content: "Be terse." },
      {
        role: "user",
        content: [
          { type: "input_text", text: "Read " },
          { type: "input_text", text: "a.ts" },
        ],
      },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading." }] },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_1", output: "export {}" },
      { type: "reasoning", summary: [] },
    ]);
    expect(messages).toEqual([
      { role: "system", content: "Be terse." },
      { role: "user", content: "Read a.ts" },
      {
        role: "assistant",
        content: "Reading.",
        toolCalls: [{ id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' }],
      },
      { role: "tool", toolCallId: "call_1", name: "read_file", content: "export {}" },
    ]);
  });

  it("takes a plain string as one user message", () => {
    expect(inputToMessages("Hi")).toEqual([{ role: "user", content: "Hi" }]);
  });

  it("refuses images and unknown items with the field at fault", () => {
    expect(() =>
      inputToMessages([{ role: "user", content: [{ type: "input_image", image_url: "x" }] }]),
    ).toThrow(expect.objectContaining({ code: "invalid_request", param: "input[0].content[0]" }));
    expect(() => inputToMessages([{ type: "web_search_call" }])).toThrow(/web_search_call/);
  });

  it("takes custom tool calls and outputs, namespaced calls, and resolves item references", () => {
    const stored = {
      type: "function_call" as const,
      id: "fc_1",
      call_id: "call_1",
      name: "spawn_agent",
      namespace: "multi_agent_v1",
      arguments: "{}",
      status: "completed" as const,
    };
    const messages = inputToMessages(
      [
        { role: "user", content: "Go" },
        { type: "item_reference", id: "fc_1" },
        { type: "function_call_output", call_id: "call_1", output: "spawned" },
        { type: "custom_tool_call", call_id: "call_2", name: "apply_patch", input: "*** Begin" },
        { type: "custom_tool_call_output", call_id: "call_2", output: "Done" },
      ],
      (id) => (id === "fc_1" ? stored : undefined),
    );
    expect(messages).toEqual([
      { role: "user", content: "Go" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "multi_agent_v1__spawn_agent", arguments: "{}" }],
      },
      {
        role: "tool",
        toolCallId: "call_1",
        name: "multi_agent_v1__spawn_agent",
        content: "spawned",
      },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_2", name: "apply_patch", arguments: '{"input":"*** Begin"}' }],
      },
      { role: "tool", toolCallId: "call_2", name: "apply_patch", content: "Done" },
    ]);
    expect(() => inputToMessages([{ type: "item_reference", id: "msg_gone" }])).toThrow(
      expect.objectContaining({ wireCode: "item_not_found" }),
    );
  });
});
