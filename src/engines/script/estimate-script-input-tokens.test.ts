// The script engine's reported input counts the whole prompt (instructions, messages, tool
// definitions), so the agent's context budget, calibrated by it, keeps its size after a turn.
import { describe, expect, it } from "vitest";
import { ContextBudget } from "../../agent/context/context-budget.ts";
import { collectStream } from "../collect-stream.ts";
import type { ChatMessage, ToolDefinition } from "../engine.ts";
import { createScriptEngine } from "./script-engine.ts";

const tools: ToolDefinition[] = ["read_file", "write_file", "run_command", "search"].map(
  (name) => ({
    name,
    description: `The ${name} tool: ${"a description a model reads before it calls. ".repeat(8)}`,
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "Relative to the workspace." } },
      required: ["path"],
    },
  }),
);

describe("script engine input tokens", () => {
  it("count the instructions, messages and tool definitions the prompt holds", async () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are Spark, a coding agent. ".repeat(20) },
      { role: "user", content: "hello" },
    ];
    const budget = new ContextBudget({ windowTokens: 131_072 });
    const before = budget.estimate(messages, tools);

    const engine = await createScriptEngine({ turns: [{ text: "Hello from the script." }] });
    const result = await collectStream(engine.stream({ messages, tools }));
    const inputTokens = result.usage?.inputTokens ?? 0;
    // What the budget estimates for the same prompt: the tools are most of it here.
    expect(inputTokens).toBe(before);

    // The turn's answer joins the conversation: the context grows, it never drops (1.5k → 340).
    const answered = [...messages, { role: "assistant" as const, content: result.text }];
    budget.recordUsage(messages, tools, answered.length, {
      inputTokens,
      outputTokens: result.usage?.outputTokens ?? 0,
    });
    const after = budget.estimate(answered, tools);
    expect(after).toBeGreaterThan(before);
    expect(
      budget.estimate([...answered, { role: "user", content: "next" }], tools),
    ).toBeGreaterThan(after);
  });

  it("count an assistant's tool calls and a request without tools", async () => {
    const engine = await createScriptEngine({ turns: [{ text: "a" }, { text: "b" }] });
    const plain: ChatMessage[] = [{ role: "user", content: "x".repeat(40) }];
    const withCall: ChatMessage[] = [
      ...plain,
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "read_file", arguments: `{"path":"${"p".repeat(38)}"}` }],
      },
    ];
    const first = await collectStream(engine.stream({ messages: plain }));
    const second = await collectStream(engine.stream({ messages: withCall }));
    expect(first.usage?.inputTokens).toBe(4 + 10);
    expect(second.usage?.inputTokens).toBe(4 + 10 + 4 + Math.ceil((9 + 49) / 4));
  });
});
