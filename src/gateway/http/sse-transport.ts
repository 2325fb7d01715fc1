// Server-sent events over an HTTP response (the stateless streaming paths): headers, framing, and
// the coalescer transport that measures the response's unsent bytes.
import type { ServerResponse } from "node:http";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import type { CoalescerTransport } from "../wire/delta-coalescer.ts";
import { eventJson } from "../wire/event-json.ts";
import { createTickCorker, isFinalResponseEvent } from "../wire/tick-corker.ts";

export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    // Proxies such as nginx would otherwise hold the stream back.
    "x-accel-buffering": "no",
  });
  response.flushHeaders();
}

/** Responses API framing: each event names its type on an `event:` line. */
export function responsesSseTransport(
  response: ServerResponse,
  onDrop: (reason: string) => void,
): CoalescerTransport {
  const corker = createTickCorker(response);
  return {
    bufferedBytes: () => response.writableLength,
    write(event: ResponseServerEvent, json: string | undefined) {
      corker.hold();
      response.write(`event: ${event.type}\ndata: ${json ?? eventJson(event)}\n\n`);
      if (isFinalResponseEvent(event.type)) corker.release();
    },
    drop(reason) {
      onDrop(reason);
      response.destroy();
    },
  };
}
