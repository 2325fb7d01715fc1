// The context budget on small windows: nothing changes under the limit, the oldest tool outputs
// go first (the latest step's stay), then older turns are compacted into a local summary.
import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../transcript.ts";
import { ContextBudget } from "./context-budget.ts";
import { SUMMARY_HEADER } from "./summarize-transcript.ts";

const big = "x".repeat(4000); // about 1000 tokens

function conversation(): TranscriptMessage[] {
  return [
    { role: "system", content: "system prompt" },
    { role: "user", content: "Fix the parser." },
    {
      role: "assistant",
      content: "Reading.",
      toolCalls: [{ id: "1", name: "read_file", arguments: '{"path":"src/parse.ts"}' }],
    },
    { role: "tool", toolCallId: "1", name: "read_file", content: big },
    {
      role: "assistant",
      content: "Patching.",
      toolCalls: [
        {
          id: "2",
          name: "apply_patch",
          arguments: JSON.stringify({
            patch: "*** Begin Patch\n*** Update File: src/parse.ts\n*** End Patch",
          }),
        },
      ],
    },
    { role: "tool", toolCallId: "2", name: "apply_patch", content: "Patch applied" },
    { role: "assistant", content: "Fixed the parser." },
    { role: "user", content: "Now the lexer." },
    {
      role: "assistant",
      content: "Reading.",
      toolCalls: [{ id: "3", name: "read_file", arguments: '{"path":"src/lex.ts"}' }],
    },
    { role: "tool", toolCallId: "3", name: "read_file", content: big },
  ];
}

describe("ContextBudget", () => {
  it("leaves a transcript under the limit alone and reports its size", () => {
    const budget = new ContextBudget();
    const fit = budget.fit(conversation(), [], 7);
    expect(fit.changed).toBe(false);
    expect(fit.usedTokens).toBeGreaterThan(2000);
    expect(budget.limitTokens).toBe(131072 - 8192);
  });

  it("truncates the oldest tool output first and keeps the latest step's", () => {
    const budget = new ContextBudget({ windowTokens: 1600, reserveOutputTokens: 100 });
    const fit = budget.fit(conversation(), [], 7);
    expect(fit).toMatchObject({ changed: true, truncatedToolOutputs: 1, compacted: false });
    expect(fit.messages[3]?.content).toBe(
      "[output removed to save context; call read_file again if you need it]",
    );
    expect(fit.messages[9]?.content).toBe(big);
    expect(fit.usedTokens).toBeLessThanOrEqual(1500);
  });

  it("compacts older turns into a summary when truncation is not enough", () => {
    const messages = conversation();
    messages.splice(
      7,
      0,
      { role: "user", content: "y".repeat(3000) },
      { role: "assistant", content: "ok" },
    );
    const budget = new ContextBudget({ windowTokens: 1400, reserveOutputTokens: 100 });
    const fit = budget.fit(messages, [], 9);
    expect(fit.compacted).toBe(true);
    expect(fit.messages[0]?.role).toBe("system");
    const summary = fit.messages[1]?.content ?? "";
    expect(summary.startsWith(SUMMARY_HEADER)).toBe(true);
    expect(summary).toContain('- The user asked: "Fix the parser."');
    expect(summary).toContain("- Files read: src/parse.ts");
    expect(summary).toContain("- Files changed: src/parse.ts");
    expect(fit.currentTurnStart).toBe(2);
    expect(fit.messages[2]).toEqual({ role: "user", content: "Now the lexer." });
    expect(fit.messages.at(-1)?.content).toBe(big);
  });

  it("calibrates the estimate with the engine's reported usage and learns its tokenizer", () => {
    const budget = new ContextBudget();
    const messages = conversation();
    const raw = budget.estimate(messages, []);
    budget.recordUsage(messages, [], messages.length, { inputTokens: raw * 2, outputTokens: 100 });
    expect(budget.estimate(messages, [])).toBe(raw * 2 + 100);
    // New text now counts double too: this engine's tokens are half the estimated size.
    expect(budget.estimate([...messages, { role: "user", content: "abcd" }], [])).toBe(
      raw * 2 + 100 + 10,
    );
  });

  it("learns from an overflow so the next fit trims enough", () => {
    const budget = new ContextBudget({ windowTokens: 4000, reserveOutputTokens: 100 });
    const messages = conversation();
    expect(budget.fit(messages, [], 7).changed).toBe(false);
    budget.recordOverflow(messages, [], budget.estimate(messages, []) * 2);
    const fit = budget.fit(messages, [], 7);
    expect(fit.changed).toBe(true);
    expect(fit.usedTokens).toBeLessThanOrEqual(budget.limitTokens);
  });

  it("compacts every turn so far on request, and only when the summary is smaller", () => {
    const budget = new ContextBudget();
    const result = budget.compact(conversation(), []);
    expect(result.compacted).toBe(true);
    if (!result.compacted) return;
    expect(result.messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(result.messages[1]?.content).toContain('- The user asked: "Now the lexer."');
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
    expect(budget.compact(result.messages, []).compacted).toBe(false);
    expect(budget.compact([{ role: "system", content: "system prompt" }], []).compacted).toBe(
      false,
    );
  });
});
