import { describe, expect, it } from "vitest";
import { replyCode } from "./reply-code.ts";

const CODE = "function double(n) {\n  return n * 2;\n}";
const CHATTY = `Sure! Here is the updated code:\n\n\`\`\`js\n${CODE}\n\`\`\`\n\nThis doubles the number.`;

describe("replyCode", () => {
  it("keeps a plain code reply as it is", () => {
    expect(replyCode(CODE, "x")).toBe(CODE);
  });

  it("unwraps a fence around the whole reply, also while its closing fence is arriving", () => {
    expect(replyCode("```ts\nconst a = 1;\n```\n", "x")).toBe("const a = 1;");
    expect(replyCode("```ts\nconst a = 1;\n``", "x")).toBe("const a = 1;");
  });

  it("takes the one fence's content out of a chatty reply (issue 38's reply)", () => {
    expect(replyCode(CHATTY, "function double(n) {}")).toBe(CODE);
  });

  it("shows only the fence's content while a chatty reply streams", () => {
    const streamed: string[] = [];
    for (let end = 1; end <= CHATTY.length; end++)
      streamed.push(replyCode(CHATTY.slice(0, end), "x"));
    const afterFence = streamed.slice(CHATTY.indexOf("```js\n") + "```js\n".length);
    // From the fence's first line on, no prose and no backticks are ever shown.
    for (const text of afterFence) {
      expect(text).not.toContain("Sure!");
      expect(text).not.toContain("`");
      expect(text).not.toContain("doubles");
      expect(CODE.startsWith(text)).toBe(true);
    }
    expect(streamed.at(-1)).toBe(CODE);
  });

  it("leaves a reply with two fenced blocks as it is (which one is the edit would be a guess)", () => {
    const two = "First:\n```js\na();\n```\nThen:\n```js\nb();\n```\n";
    expect(replyCode(two, "x")).toBe(two);
  });

  it("edits a Markdown selection that holds a fence as text", () => {
    const markdown = "Intro\n```sh\nnpm test\n```\nOutro";
    expect(replyCode(markdown, "Intro\n```sh\nnpm t\n```\nOutro")).toBe(markdown);
  });
});
