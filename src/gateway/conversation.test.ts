// Input items to engine messages: roles, content parts, function calls merged into the assistant
// turn, their outputs as tool messages, and clear refusals for what a text engine cannot take.
import { describe, expect, it } from "vitest";
import { inputToMessages, toEngineTools } from "./conversation.ts";

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
});

describe("toEngineTools", () => {
  it("keeps function tools, drops all with tool_choice none, refuses hosted tools", () => {
    const tools = [
      { type: "function", name: "grep", description: "Search.", parameters: { type: "object" } },
    ];
    expect(toEngineTools(tools, "auto")).toEqual([
      { name: "grep", description: "Search.", parameters: { type: "object" } },
    ]);
    expect(toEngineTools(tools, "none")).toBeUndefined();
    expect(() => toEngineTools([{ type: "web_search" }], undefined)).toThrow(/function tools only/);
  });
});
