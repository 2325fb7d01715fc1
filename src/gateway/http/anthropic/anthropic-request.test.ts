import { describe, expect, it } from "vitest";
import { anthropicMessageCreateSchema } from "../../../protocol/anthropic-messages.ts";
import { inputToMessages } from "../../turn/conversation.ts";
import { toResponsesBody } from "./anthropic-request.ts";

function mapped(body: Record<string, unknown>) {
  return toResponsesBody(
    anthropicMessageCreateSchema.parse({ model: "claude-x", max_tokens: 100, ...body }),
  );
}

describe("toResponsesBody", () => {
  it("joins system blocks into the instructions and keeps sampling fields", () => {
    const { body, stopSequences, thinking } = mapped({
      system: [
        { type: "text", text: "One." },
        { type: "text", text: "Two.", cache_control: { type: "ephemeral" } },
      ],
      messages: [{ role: "user", content: "Hi" }],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 20,
      stop_sequences: ["END"],
      thinking: { type: "adaptive" },
      context_management: { edits: [] },
    });
    expect(body).toMatchObject({
      instructions: "One.\n\nTwo.",
      max_output_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 20,
      store: false,
      stream: false,
    });
    expect(stopSequences).toEqual(["END"]);
    expect(thinking).toBe(true);
  });

  it("turns tool_use, thinking and multi-block error results into the conversation", () => {
    const { body } = mapped({
      messages: [
        { role: "user", content: [{ type: "text", text: "Read a.txt" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Need the file.", signature: "sig" },
            { type: "text", text: "Reading." },
            { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "a.txt" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              is_error: true,
              content: [
                { type: "text", text: "no such file" },
                { type: "text", text: "try another" },
              ],
            },
            { type: "text", text: "Go on." },
          ],
        },
      ],
    });
    expect(inputToMessages(body.input)).toEqual([
      { role: "user", content: "Read a.txt" },
      {
        role: "assistant",
        content: "Reading.",
        reasoning: "Need the file.",
        toolCalls: [{ id: "toolu_1", name: "Read", arguments: '{"file_path":"a.txt"}' }],
      },
      {
        role: "tool",
        toolCallId: "toolu_1",
        name: "Read",
        content: "Error: no such file\n\ntry another",
      },
      { role: "user", content: "Go on." },
    ]);
  });

  it("maps tool_choice and keeps server tools for the turn to drop", () => {
    const tools = [
      { name: "Read", input_schema: { type: "object", properties: {} } },
      { type: "web_search_20250305", name: "web_search" },
    ];
    expect(mapped({ messages: [], tools, tool_choice: { type: "any" } }).body).toMatchObject({
      tool_choice: "required",
      tools: [
        { type: "function", name: "Read" },
        { type: "web_search_20250305", name: "web_search" },
      ],
    });
    expect(
      mapped({
        messages: [],
        tools,
        tool_choice: { type: "tool", name: "Read", disable_parallel_tool_use: true },
      }).body,
    ).toMatchObject({
      tool_choice: { type: "function", name: "Read" },
      parallel_tool_calls: false,
    });
    expect(mapped({ messages: [], tools, tool_choice: { type: "none" } }).body.tool_choice).toBe(
      "none",
    );
  });

  it("refuses images, naming the block and why", () => {
    expect(() =>
      mapped({
        messages: [
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "t",
                content: [{ type: "image", source: { type: "base64", data: "" } }],
              },
            ],
          },
        ],
      }),
    ).toThrow(
      /messages\[0\]\.content\[0\]\.content\[0\]: content blocks of type 'image'.*no vision/,
    );
  });

  it("refuses a tool_use block in a user message", () => {
    expect(() =>
      mapped({
        messages: [
          { role: "user", content: [{ type: "tool_use", id: "t", name: "x", input: {} }] },
        ],
      }),
    ).toThrow(/belongs in an assistant message/);
  });
});
