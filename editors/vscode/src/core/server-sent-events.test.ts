import { describe, expect, it } from "vitest";
import { readServerSentEvents } from "./server-sent-events.ts";

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(chunks: string[]) {
  const events = [];
  for await (const event of readServerSentEvents(bodyOf(chunks))) events.push(event);
  return events;
}

describe("readServerSentEvents", () => {
  it("joins events split across chunks, CRLF lines and multi-line data; skips comments", async () => {
    expect(
      await collect([
        ": keep-alive\n\nda",
        'ta: {"a":1}\r\n\r\nevent: done\ndata: x\ndata: y\n\n',
        "data: [DONE]",
      ]),
    ).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: "done", data: "x\ny" },
      { event: undefined, data: "[DONE]" },
    ]);
  });

  it("decodes a character split between chunks", async () => {
    const bytes = new TextEncoder().encode("data: é\n\n");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    const events = [];
    for await (const event of readServerSentEvents(body)) events.push(event.data);
    expect(events).toEqual(["é"]);
  });
});
