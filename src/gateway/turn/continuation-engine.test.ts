// A continued response asks the engine for the rest of the answer after the text already sent; an
// engine that cannot continue a partial answer is run again whole, the sent text skipped.
import { describe, expect, it } from "vitest";
import type { EngineEvent, EngineRequest } from "../../engines/engine.ts";
import { createScriptEngine } from "../../engines/script/script-engine.ts";
import { createSyntheticEngine } from "../../engines/synthetic/synthetic-engine.ts";
import {
  continuationEngine,
  continuedRequest,
  type ContinuationPath,
} from "./continuation-engine.ts";

const request: EngineRequest = {
  messages: [{ role: "user", content: "Count." }],
  sampling: { maxOutputTokens: 100, temperature: 0 },
};

async function text(events: AsyncIterable<EngineEvent>): Promise<{ text: string; finish: string }> {
  let result = "";
  let finish = "";
  for await (const event of events) {
    if (event.type === "text-delta") result += event.text;
    if (event.type === "finish") finish = event.reason;
  }
  return { text: result, finish };
}

describe("continuationEngine", () => {
  it("sends the text so far as the assistant's partial answer, and gets only the rest", async () => {
    const engine = await createScriptEngine({ turns: [{ text: "one two three four five" }] });
    const paths: ContinuationPath[] = [];
    const continued = continuationEngine(engine, "one two th", (path) => paths.push(path));
    expect(await text(continued.stream(request))).toEqual({
      text: "ree four five",
      finish: "stop",
    });
    expect(paths).toEqual([{ how: "engine" }]);
    const sent = engine.requests[0];
    expect(sent?.continueFinalMessage).toBe(true);
    expect(sent?.messages.at(-1)).toEqual({ role: "assistant", content: "one two th" });
  });

  it("runs the request again whole and skips what was sent when the engine cannot continue", async () => {
    const engine = createSyntheticEngine({ text: "alpha beta gamma delta", tokens: 4 });
    const whole = await text(engine.stream(request));
    const sent = whole.text.slice(0, 9);
    const paths: ContinuationPath[] = [];
    const continued = continuationEngine(engine, sent, (path) => paths.push(path));
    const rest = await text(continued.stream(request));
    expect(paths).toEqual([
      { how: "rerun", reason: expect.stringMatching(/cannot continue a partial answer/) as string },
    ]);
    expect(sent + rest.text).toBe(whole.text);
    expect(rest.finish).toBe(whole.finish);
    expect(engine.requests.at(-2)?.continueFinalMessage).toBe(true);
    expect(engine.requests.at(-1)?.continueFinalMessage).toBeUndefined();
  });

  it("takes the text already produced off the output budget", () => {
    const continued = continuedRequest(request, "x".repeat(200));
    expect(continued.sampling?.maxOutputTokens).toBeLessThan(100);
    expect(continued.sampling?.maxOutputTokens).toBeGreaterThan(40);
    expect(
      continuedRequest({ ...request, sampling: { maxOutputTokens: 3 } }, "x".repeat(400)).sampling
        ?.maxOutputTokens,
    ).toBe(1);
  });
});
