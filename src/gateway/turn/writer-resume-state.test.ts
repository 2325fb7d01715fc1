// A writer rebuilt from the events another replica logged goes on where they stop: the same open
// message, the next sequence number, the whole text in the done events and the final response.
import { describe, expect, it } from "vitest";
import type { ResponseObject, ResponseServerEvent } from "../../protocol/responses-events.ts";
import { ResponseEventWriter } from "./response-event-writer.ts";
import { textSoFar, writerResumeState } from "./writer-resume-state.ts";

const skeleton = {
  id: "resp_1",
  object: "response",
  status: "in_progress",
  output: [],
} as unknown as ResponseObject;
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const ending = { status: "completed" as const, usage: undefined, sparkTimings: null };

describe("writerResumeState", () => {
  it("continues numbering and text after the events it was rebuilt from", async () => {
    const first: ResponseServerEvent[] = [];
    const writer = new ResponseEventWriter(skeleton, (event) => first.push(event));
    writer.started();
    writer.textDelta("Hello");
    await tick();
    writer.textDelta(" wor");
    await tick();
    const state = writerResumeState(first);
    expect(state.nextSequenceNumber).toBe(first.length);
    expect(textSoFar(state)).toBe("Hello wor");
    expect(state.finished).toBe(false);

    const rest: ResponseServerEvent[] = [];
    const continued = new ResponseEventWriter(
      skeleton,
      (event) => rest.push(event),
      new Map(),
      undefined,
      state,
    );
    continued.textDelta("ld");
    await tick();
    const response = continued.finish(ending);
    const all = [...first, ...rest];
    expect(all.map((event) => event.sequence_number)).toEqual(all.map((_, index) => index));
    expect(response.output).toHaveLength(1);
    const message = response.output[0];
    expect(message?.type === "message" ? message.content[0]?.text : "").toBe("Hello world");
    expect(message?.id).toBe(state.openMessage?.id);
    const done = rest.find((event) => event.type === "response.output_text.done");
    expect(done?.type === "response.output_text.done" ? done.text : "").toBe("Hello world");
    expect(continued.reply()).toEqual({ role: "assistant", content: "Hello world" });
    expect(writerResumeState(all).finished).toBe(true);
  });
});
