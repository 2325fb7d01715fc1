// The chain plan by table: when a request continues what the socket holds, and when it goes whole.
import { describe, expect, it } from "vitest";
import { chainAfter, planCreate, type InputItem } from "./response-chain.ts";

const user = (content: string): InputItem => ({ role: "user", content });
const first = [user("one")];
const answered = chainAfter("resp_1", first, { text: "hi", calls: [] }, "tenant-a", false);
const warmed = chainAfter("resp_w", first, { text: "", calls: [] }, "tenant-a", true);

describe("planCreate", () => {
  it.each([
    ["no chain", undefined, [user("one")], "tenant-a", undefined, 1],
    [
      "extends the answered chain",
      answered,
      [...first, { role: "assistant", content: "hi" }, user("two")],
      "tenant-a",
      "resp_1",
      1,
    ],
    [
      "repeats the answered turn (a retry)",
      answered,
      [...first, { role: "assistant", content: "hi" }],
      "tenant-a",
      undefined,
      2,
    ],
    [
      "edited the answer",
      answered,
      [...first, { role: "assistant", content: "hi!" }, user("two")],
      "tenant-a",
      undefined,
      3,
    ],
    [
      "another tenant",
      answered,
      [...first, { role: "assistant", content: "hi" }, user("two")],
      "tenant-b",
      undefined,
      3,
    ],
    ["same input after a warm-up", warmed, first, "tenant-a", "resp_w", 0],
    ["shorter than the chain", answered, [], "tenant-a", undefined, 0],
  ] as const)("%s", (_name, chain, input, scope, previous, sent) => {
    const plan = planCreate(chain, [...input], scope);
    expect(plan.previousResponseId).toBe(previous);
    expect(plan.input).toHaveLength(sent);
  });

  it("holds tool calls as the function_call items the agent sends back", () => {
    const chain = chainAfter(
      "resp_2",
      first,
      { text: "", calls: [{ callId: "c1", name: "read_file", arguments: "{}" }] },
      undefined,
      false,
    );
    const output = { type: "function_call_output", call_id: "c1", output: "x" };
    const plan = planCreate(
      chain,
      [
        ...first,
        { type: "function_call", call_id: "c1", name: "read_file", arguments: "{}" },
        output,
      ],
      undefined,
    );
    expect(plan).toEqual({ previousResponseId: "resp_2", input: [output] });
  });
});
