// The fallback when no WebSocket can be opened: POST /v1/responses with `stream: true`, read as
// server-sent events. Aborting the request is the cancel (the gateway frees the engine on hang-up).
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";
import { SparkError } from "../../protocol/spark-error.ts";
import { SseParser } from "../../engines/openai-compatible/inspect.ts";
import { toSparkErrorCode } from "./responses-event-mapper.ts";
import type { TransportItem } from "./websocket-transport.ts";

export async function* streamOverHttp(
  url: string,
  headers: Record<string, string>,
  body: ResponseCreateBody,
  signal: AbortSignal | undefined,
): AsyncGenerator<TransportItem> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ ...body, stream: true }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (signal?.aborted === true) return;
    yield {
      error: new SparkError(
        "network_error",
        `Cannot reach the gateway at ${url}: ${(error as Error).message}`,
        { cause: error },
      ),
    };
    return;
  }
  if (!response.ok || response.body === null) {
    yield { error: await errorFromBody(response) };
    return;
  }
  const parser = new SseParser();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const sse of parser.push(value)) {
        if (sse.data === "[DONE]") return;
        yield { event: JSON.parse(sse.data) as ResponseServerEvent };
      }
    }
    for (const sse of parser.end()) {
      if (sse.data !== "[DONE]") yield { event: JSON.parse(sse.data) as ResponseServerEvent };
    }
  } catch (error) {
    if (signal?.aborted === true) return;
    yield {
      error: new SparkError(
        "network_error",
        `The gateway's event stream broke: ${(error as Error).message}`,
        { cause: error },
      ),
    };
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

async function errorFromBody(response: Response): Promise<SparkError> {
  const text = await response.text().catch(() => "");
  try {
    const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
    const code = toSparkErrorCode(
      parsed.error?.code,
      response.status >= 500 ? "upstream_error" : "invalid_request",
    );
    return new SparkError(
      code,
      parsed.error?.message ?? `The gateway answered HTTP ${response.status}.`,
      { status: response.status },
    );
  } catch {
    return new SparkError(
      "upstream_error",
      `The gateway answered HTTP ${response.status}: ${text.slice(0, 200)}`,
      { status: response.status },
    );
  }
}
