// Where the events of one POST /v1/responses go: a server-sent event stream, opened at the first
// event (a refusal before it can still be a status), or, for `stream: false`, nowhere but the
// final response it keeps. The original turn, a retry's replay and a handed-over end share it.
import type { ServerResponse } from "node:http";
import type { ResponseObject, ResponseServerEvent } from "../../protocol/responses-events.ts";
import { DeltaCoalescer } from "../wire/delta-coalescer.ts";
import type { GatewayContext } from "../gateway-context.ts";
import type { EmitEvent } from "../turn/response-event-writer.ts";
import { isFinalResponseEvent } from "../wire/tick-corker.ts";
import { responsesSseTransport, startEventStream } from "./sse-transport.ts";

export interface HttpResponseSink {
  readonly emit: EmitEvent;
  readonly streaming: boolean;
  /** sequence_number of the last event taken (-1: none yet). */
  readonly lastSequenceNumber: number;
  /** The response the final event carried, once one went through. */
  readonly final: ResponseObject | undefined;
  /** Waits until a stream's events are written, then ends it (a JSON answer is the caller's). */
  end(): Promise<void>;
}

export function httpResponseSink(
  context: GatewayContext,
  response: ServerResponse,
  streaming: boolean,
  onDrop: () => void,
): HttpResponseSink {
  let lastSequenceNumber = -1;
  let final: ResponseObject | undefined;
  let started = false;
  const coalescer = streaming
    ? new DeltaCoalescer(responsesSseTransport(response, onDrop), {
        softBytes: context.config.sendBufferSoftBytes,
        hardBytes: context.config.sendBufferHardBytes,
      })
    : undefined;
  const emit: EmitEvent = (event: ResponseServerEvent, json?: string) => {
    lastSequenceNumber = event.sequence_number;
    if (isFinalResponseEvent(event.type) && "response" in event) final = event.response;
    if (coalescer === undefined || response.destroyed) return;
    if (!started) {
      startEventStream(response);
      started = true;
    }
    coalescer.push(event, json);
  };
  return {
    emit,
    streaming,
    get lastSequenceNumber() {
      return lastSequenceNumber;
    },
    get final() {
      return final;
    },
    async end() {
      if (coalescer === undefined) return;
      await coalescer.drained();
      response.end();
    },
  };
}
