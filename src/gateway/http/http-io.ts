// Small HTTP helpers: a JSON body reader (declared JSON, size- and depth-capped) and OpenAI-shaped
// JSON and error replies.
import type { IncomingMessage, ServerResponse } from "node:http";
import { SparkError } from "../../protocol/spark-error.ts";
import type { GatewayClock } from "../gateway-clock.ts";
import { checkJsonDepth } from "../access/json-depth.ts";
import { describeWireError, WireError } from "../wire/wire-error.ts";

/** `clock`, when given, takes the time of checking and parsing the body once it has arrived. */
export async function readJsonBody(
  request: IncomingMessage,
  maxBytes: number,
  clock?: GatewayClock,
): Promise<unknown> {
  requireJsonContentType(request);
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > maxBytes) throw tooLarge(declared, maxBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > maxBytes) throw tooLarge(total, maxBytes);
    chunks.push(buffer);
  }
  const startedAt = performance.now();
  const text = Buffer.concat(chunks).toString("utf8");
  checkJsonDepth(text);
  try {
    const value = JSON.parse(text) as unknown;
    clock?.addSince(startedAt);
    return value;
  } catch {
    throw new WireError(
      "invalid_request",
      "The request body is not valid JSON; send a JSON object.",
      {
        wireCode: "invalid_json",
      },
    );
  }
}

/**
 * A browser sends text/plain, form and multipart bodies cross-origin without asking first (no CORS
 * preflight); requiring JSON means no other site's page can start a generation here.
 */
function requireJsonContentType(request: IncomingMessage): void {
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/json") return;
  throw new WireError(
    "invalid_request",
    `The request body must be JSON sent with \`Content-Type: application/json\`${type === "" ? "" : ` (got ${type})`}.`,
    { wireCode: "unsupported_media_type", status: 415 },
  );
}

function tooLarge(bytes: number, maxBytes: number): WireError {
  return new WireError(
    "invalid_request",
    `The request body is ${bytes}+ bytes, over this server's limit of ${maxBytes} (max_frame_bytes).`,
    { wireCode: "request_too_large", status: 413 },
  );
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** The OpenAI error body: `{error: {message, type, param, code}}`, with the status for its code. */
export function sendError(response: ServerResponse, error: unknown): void {
  const wire = describeWireError(error);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const headers: Record<string, string> = {};
  if (wire.status === 401) headers["www-authenticate"] = 'Bearer realm="spark"';
  // A refused body (too large, not JSON, not allowed) is not read on: Node closes the connection
  // once this is sent, instead of draining up to gigabytes to keep it alive.
  if (!response.req.complete) headers.connection = "close";
  // An upstream's Retry-After (on an engine's SparkError) reaches the client too.
  const retryAfterMs = error instanceof SparkError ? error.retryAfterMs : undefined;
  if (retryAfterMs !== undefined) headers["retry-after"] = String(Math.ceil(retryAfterMs / 1000));
  sendJson(
    response,
    wire.status,
    { error: { message: wire.message, type: wire.type, param: wire.param, code: wire.code } },
    headers,
  );
}
