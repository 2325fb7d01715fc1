// Streams one POST over server-sent events with undici's request() (a plain Node stream, the least
// client work per event) and hands each event to the caller with its arrival time.
import { request, type Dispatcher } from "undici";
import { SparkError } from "../../src/protocol/spark-error.ts";

export interface SseEvent {
  event: string | undefined;
  data: string;
}

export interface SsePostResult {
  sentAt: number;
  endedAt: number;
  bytesSent: number;
}

export async function postSse(
  url: string,
  body: unknown,
  onEvent: (event: SseEvent, at: number) => void,
  options: { dispatcher?: Dispatcher; signal?: AbortSignal; freshConnection?: boolean } = {},
): Promise<SsePostResult> {
  const payload = JSON.stringify(body);
  const sentAt = performance.now();
  const response = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: payload,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    // llama-server may close a kept-alive connection after a stream; a reused one would fail.
    ...(options.freshConnection === true ? { reset: true } : {}),
  });
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    throw new SparkError(
      "upstream_error",
      `POST ${url} answered ${response.statusCode}: ${text.slice(0, 300)}`,
    );
  }
  let buffered = "";
  response.body.setEncoding("utf8");
  for await (const chunk of response.body as AsyncIterable<string>) {
    const at = performance.now();
    buffered += chunk;
    let boundary = buffered.indexOf("\n\n");
    while (boundary !== -1) {
      const block = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      const parsed = parseBlock(block);
      if (parsed !== undefined) onEvent(parsed, at);
      boundary = buffered.indexOf("\n\n");
    }
  }
  return { sentAt, endedAt: performance.now(), bytesSent: Buffer.byteLength(payload) };
}

function parseBlock(block: string): SseEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return data.length === 0 ? undefined : { event, data: data.join("\n") };
}
