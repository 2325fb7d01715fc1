// The scripted engine passes the shared Engine contract (with a script written for its call
// order), and replays tool calls, expectations, delays and errors as documented.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { collectStream } from "../collect-stream.ts";
import type { EngineRequest } from "../engine.ts";
import { contractTool, runEngineContract } from "../../../test/support/run-engine-contract.ts";
import { createScriptEngine, splitIntoWords } from "./script-engine.ts";
import type { ScriptTurnInput } from "./script-turn.ts";

const sentence = "The quick brown fox jumps over the lazy dog.";
const colour = "Teal is a calm colour.";
const number = "Seven is my number.";
// One line per stream() call, in the order the contract makes them.
const contractTurns: ScriptTurnInput[] = [
  { text: "Hello there, friend.", expect: { lastMessageIncludes: "Say hello." } },
  { text: "One two three four five six seven eight nine ten." },
  { text: sentence, expect: { lastMessageIncludes: "Write a sentence." } },
  { text: sentence },
  { text: "Once upon a time ".repeat(100), expect: { lastMessageIncludes: "long story" } },
  { text: colour },
  { text: number },
  { text: colour, expect: { lastMessageIncludes: "colour" } },
  { text: number, expect: { lastMessageIncludes: "number" } },
  { text: "Hi there.", expect: { lastMessageIncludes: "Say hi." } },
  { text: "a + b;" },
  // Replayed as the structured answer: the script holds what a model would have written.
  { text: '{"city": "Paris", "sunny": true}', expect: { lastMessageIncludes: "as JSON" } },
  // The whole answer, then its continuation after the answer so far.
  { text: "The sea is wide and deep.", expect: { lastMessageIncludes: "the sea" } },
  { text: "The sea is wide and deep." },
  {
    text: "",
    toolCalls: [{ name: contractTool.name, arguments: { city: "Paris" } }],
    expect: { lastMessageIncludes: "weather" },
  },
];

runEngineContract({
  name: "script",
  createEngine: async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "spark-script-"));
    const file = path.join(directory, "contract.jsonl");
    writeFileSync(file, contractTurns.map((turn) => JSON.stringify(turn)).join("\n") + "\n");
    return createScriptEngine({ path: file });
  },
});

const ask = (content: string): EngineRequest => ({ messages: [{ role: "user", content }] });

describe("script engine", () => {
  it("splits text into word deltas that join back exactly", () => {
    expect(splitIntoWords("Hello big  world. ")).toEqual(["Hello", " big", "  world. "]);
    expect(splitIntoWords("")).toEqual([]);
  });

  it("replays tool calls as start/delta/end and finishes with tool_calls", async () => {
    const engine = await createScriptEngine({
      turns: [
        {
          text: "Reading it.",
          toolCalls: [{ name: "read_file", arguments: { path: "src/a-long-file-name.ts" } }],
        },
      ],
    });
    const result = await collectStream(engine.stream(ask("Open a.")));
    expect(result.text).toBe("Reading it.");
    expect(result.finishReason).toBe("tool_calls");
    expect(result.toolCalls).toEqual([
      { id: "call_1_1", name: "read_file", arguments: '{"path":"src/a-long-file-name.ts"}' },
    ]);
    const deltas = result.events.filter((event) => event.type === "tool-call-delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(result.usage?.outputTokens).toBeGreaterThan(0);
  });

  it("plays a custom tool call's text as the arguments {input}", async () => {
    const engine = await createScriptEngine({
      turns: [{ toolCalls: [{ name: "apply_patch", input: "*** Begin Patch\n*** End Patch" }] }],
    });
    const result = await collectStream(engine.stream(ask("Patch.")));
    expect(result.toolCalls[0]?.arguments).toBe('{"input":"*** Begin Patch\\n*** End Patch"}');
  });

  it("answers a warm-up (prefillOnly) without output and without using a line", async () => {
    const engine = await createScriptEngine({ turns: [{ text: "The real answer." }] });
    const warmUp = await collectStream(engine.stream({ ...ask("Warm."), prefillOnly: true }));
    expect(warmUp.finishReason).toBe("stop");
    expect(warmUp.text).toBe("");
    expect(engine.turnsPlayed).toBe(0);
    const result = await collectStream(engine.stream(ask("Go.")));
    expect(result.text).toBe("The real answer.");
  });

  it("fails the stream with a clear error when the expectation does not hold", async () => {
    const engine = await createScriptEngine({
      turns: [{ text: "ok", expect: { lastMessageIncludes: "banana" } }],
    });
    const result = await collectStream(engine.stream(ask("apple")));
    expect(result.finishReason).toBe("error");
    expect(result.error?.code).toBe("invalid_request");
    expect(result.error?.message).toContain(
      'Script turn 1 expected the last message to include "banana"',
    );
  });

  it("ends with an error once every line was played", async () => {
    const engine = await createScriptEngine({ turns: [{ text: "only one" }] });
    await collectStream(engine.stream(ask("one")));
    const result = await collectStream(engine.stream(ask("two")));
    expect(result.error?.message).toContain("has no turn left");
    expect(engine.turnsPlayed).toBe(1);
  });

  it("plays a scripted upstream error after the text", async () => {
    const engine = await createScriptEngine({
      turns: [{ text: "partial", error: { code: "upstream_error", message: "boom" } }],
    });
    const result = await collectStream(engine.stream(ask("go")));
    expect(result.text).toBe("partial");
    expect(result.error?.code).toBe("upstream_error");
  });

  it("rejects a malformed script with the file and line", async () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), "spark-script-"));
    const file = path.join(directory, "bad.jsonl");
    writeFileSync(file, '{"text": "fine"}\n\n{"toolCalls": [{"arguments": {}}]}\n');
    await expect(createScriptEngine({ path: file })).rejects.toThrow(`${file}:3: toolCalls.0.name`);
  });

  it("stops between delayed deltas when aborted", async () => {
    const engine = await createScriptEngine({
      turns: [{ text: "a b c d e f g h i j k l", delayMs: 20 }],
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await collectStream(engine.stream(ask("go"), { signal: controller.signal }));
    expect(result.finishReason).toBe("cancelled");
    expect(result.text.length).toBeLessThan("a b c d e f g h i j k l".length);
  });
});
