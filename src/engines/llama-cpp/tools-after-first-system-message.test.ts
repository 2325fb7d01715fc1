// The tool block's place in the rendered prompt, with node-llama-cpp's own wrappers and no model:
// right after the first system message, so system text added later does not move it.
import {
  Llama3ChatWrapper,
  QwenChatWrapper,
  type ChatHistoryItem,
  type ChatWrapper,
} from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { documentToolsAfterFirstSystemMessage } from "./tools-after-first-system-message.ts";

const functions = { run: { description: "Runs a command." } };
const warmUp: ChatHistoryItem[] = [
  { type: "system", text: "You are a coding agent." },
  { type: "model", response: [] },
];
const real: ChatHistoryItem[] = [
  { type: "system", text: "You are a coding agent." },
  { type: "system", text: "<skills_instructions>" },
  { type: "user", text: "Say hi" },
  { type: "model", response: [] },
];

describe("documentToolsAfterFirstSystemMessage", () => {
  for (const create of [() => new QwenChatWrapper(), () => new Llama3ChatWrapper()]) {
    it(`keeps the warm-up's rendering as a prefix of the real request (${create().wrapperName})`, () => {
      const wrapper = documentToolsAfterFirstSystemMessage(create());
      const render = (chatHistory: ChatHistoryItem[]): string =>
        wrapper
          .generateContextState({ chatHistory, availableFunctions: functions })
          .contextText.toString();
      const warmText = render(warmUp);
      const realText = render(real);
      const toolsEnd = warmText.indexOf("Runs a command.");
      expect(toolsEnd).toBeGreaterThan(warmText.indexOf("You are a coding agent."));
      expect(realText.slice(0, toolsEnd)).toBe(warmText.slice(0, toolsEnd));
      expect(realText.indexOf("<skills_instructions>")).toBeGreaterThan(toolsEnd);
    });
  }

  it("leaves a history with one system message as the wrapper renders it", () => {
    const plain = new QwenChatWrapper();
    const wrapped = documentToolsAfterFirstSystemMessage(new QwenChatWrapper());
    const state = (wrapper: ChatWrapper): string =>
      wrapper
        .generateContextState({ chatHistory: warmUp, availableFunctions: functions })
        .contextText.toString();
    expect(state(wrapped)).toBe(state(plain));
  });
});
