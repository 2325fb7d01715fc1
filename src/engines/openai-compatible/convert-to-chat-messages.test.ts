import { describe, expect, it } from "vitest";
import { convertToChatMessages } from "./convert-to-chat-messages.ts";

describe("convertToChatMessages", () => {
  it("maps every role, keeping tool call ids", () => {
    expect(
      convertToChatMessages([
        { role: "system", content: "s" },
        { role: "user", content: "u" },
        { role: "assistant", content: "a" },
        {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "f", arguments: '{"x":1}' }],
        },
        { role: "tool", toolCallId: "call_1", name: "f", content: "result" },
      ]),
    ).toEqual([
      { role: "system", content: "s" },
      { role: "user", content: "u" },
      { role: "assistant", content: "a" },
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "f", arguments: '{"x":1}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "result" },
    ]);
  });

  it("leaves out an empty tool call list", () => {
    expect(convertToChatMessages([{ role: "assistant", content: "a", toolCalls: [] }])).toEqual([
      { role: "assistant", content: "a" },
    ]);
  });
});
