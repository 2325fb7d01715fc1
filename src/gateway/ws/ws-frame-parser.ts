// One WebSocket frame from a client → a validated client event, or a WireError that says what was
// wrong (too large, binary, not JSON, unknown type, schema) without touching the connection.
import type { RawData } from "ws";
import {
  responsesClientEventSchema,
  responsesClientEventTypes,
  type ResponsesClientEvent,
} from "../../protocol/responses-requests.ts";
import { isCommonResponseCreate } from "../../protocol/response-create-fast-check.ts";
import { checkJsonDepth } from "../access/json-depth.ts";
import { schemaError } from "../wire/schema-error.ts";
import { WireError } from "../wire/wire-error.ts";

export function parseClientFrame(
  data: RawData,
  isBinary: boolean,
  maxFrameBytes: number,
): ResponsesClientEvent {
  const bytes = frameLength(data);
  if (bytes > maxFrameBytes) {
    throw new WireError(
      "invalid_request",
      `The frame is ${bytes} bytes, over this server's limit of ${maxFrameBytes} (max_frame_bytes). Send less input per turn, or chain turns with previous_response_id.`,
      { wireCode: "frame_too_large", status: 413 },
    );
  }
  if (isBinary) {
    throw new WireError(
      "invalid_request",
      "Binary frames are not supported: send each event as a JSON text frame.",
      {
        wireCode: "invalid_json",
      },
    );
  }
  const text = frameText(data);
  checkJsonDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WireError(
      "invalid_request",
      "The frame is not valid JSON: send one JSON object per frame.",
      {
        wireCode: "invalid_json",
      },
    );
  }
  const type =
    typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
  if (typeof type !== "string") {
    throw new WireError(
      "invalid_request",
      `Each event needs a string "type", one of: ${responsesClientEventTypes.join(", ")}.`,
      {
        param: "type",
      },
    );
  }
  if (!(responsesClientEventTypes as readonly string[]).includes(type)) {
    throw new WireError(
      "invalid_request",
      `Unknown event type '${type.slice(0, 64)}'; this server accepts ${responsesClientEventTypes.join(", ")}.`,
      { wireCode: "unknown_event_type", param: "type" },
    );
  }
  // The common create frame skips zod (see response-create-fast-check.ts); the rest, and every
  // invalid frame, gets zod's checking and messages.
  if (type === "response.create" && isCommonResponseCreate(value)) {
    return value as ResponsesClientEvent;
  }
  const parsed = responsesClientEventSchema.safeParse(value);
  if (!parsed.success) throw schemaError(parsed.error, `The ${type} event`);
  return parsed.data;
}

function frameLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function frameText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return data instanceof ArrayBuffer ? Buffer.from(data).toString("utf8") : data.toString("utf8");
}
