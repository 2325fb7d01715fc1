// The wire text of one server event. A text delta, the event sent per tick of every stream, is
// written from a fixed prefix and its few fields rather than by JSON.stringify walking the object:
// the same bytes (the keys in the order ResponseEventWriter and the transports give them), about
// a quarter of the work.
import type {
  ResponseConnectionEvent,
  ResponseServerEvent as ResponseStreamEvent,
} from "../../protocol/responses-events.ts";

/** What a transport carries: a response's events, and on WebSockets the connection's own. */
export type TransportEvent = ResponseStreamEvent | ResponseConnectionEvent;

/** `streamId`: the WebSocket lane, written as `{ ...event, stream_id }` would be. */
export function eventJson(event: TransportEvent, streamId?: string): string {
  if (event.type !== "response.output_text.delta" || event.logprobs.length !== 0) {
    const json = JSON.stringify(event);
    return streamId === undefined ? json : withStreamId(json, streamId);
  }
  const lane = streamId === undefined ? "" : `,"stream_id":${JSON.stringify(streamId)}`;
  return (
    `{"type":"response.output_text.delta","sequence_number":${event.sequence_number}` +
    `,"item_id":${JSON.stringify(event.item_id)},"output_index":${event.output_index}` +
    `,"content_index":${event.content_index},"delta":${JSON.stringify(event.delta)}` +
    `,"logprobs":[]${lane}}`
  );
}

/** The wire text of `{ ...event, stream_id }` from the event's own (which has no stream_id): the
 * spread puts the new key last, so it is appended before the closing brace. */
export function withStreamId(json: string, streamId: string): string {
  return `${json.slice(0, -1)},"stream_id":${JSON.stringify(streamId)}}`;
}
