// Responses over one kept-open WebSocket: opens it (or fails within the timeout so the caller can
// fall back to HTTP), sends `response.create`, yields server events, and cancels on abort.
import WebSocket from "ws";
import type { ResponseServerEvent } from "../../protocol/responses-events.ts";
import type { ResponseCreateBody } from "../../protocol/responses-requests.ts";
import { SparkError } from "../../protocol/spark-error.ts";

export type TransportItem = { event: ResponseServerEvent } | { error: SparkError };

export function openWebSocket(
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, handshakeTimeout: timeoutMs });
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new SparkError("network_error", `No WebSocket to ${url} within ${timeoutMs} ms.`));
    }, timeoutMs);
    socket.once("open", () => {
      clearTimeout(timer);
      // Errors after opening surface as 'close' during a stream; without a listener they would throw.
      socket.on("error", () => {});
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new SparkError("network_error", `Cannot open a WebSocket to ${url}: ${error.message}`, {
          cause: error,
        }),
      );
    });
  });
}

export async function* streamOverWebSocket(
  socket: WebSocket,
  body: ResponseCreateBody,
  signal: AbortSignal | undefined,
): AsyncGenerator<TransportItem> {
  const items: TransportItem[] = [];
  let wake: (() => void) | undefined;
  let closed = false;
  let responseId: string | undefined;
  const push = (item: TransportItem): void => {
    items.push(item);
    wake?.();
  };
  const onMessage = (data: WebSocket.RawData): void => {
    try {
      push({ event: JSON.parse(frameText(data)) as ResponseServerEvent });
    } catch (error) {
      push({
        error: new SparkError("protocol_error", "The gateway sent a frame that is not JSON.", {
          cause: error,
        }),
      });
    }
  };
  const onClose = (): void => {
    closed = true;
    push({
      error: new SparkError(
        "network_error",
        "The gateway closed the WebSocket during the response.",
      ),
    });
  };
  const onAbort = (): void => {
    // The gateway stops generating now and answers response.incomplete with the partial output.
    if (socket.readyState === WebSocket.OPEN) {
      socket.send(
        JSON.stringify({
          type: "response.cancel",
          ...(responseId === undefined ? {} : { response_id: responseId }),
        }),
      );
    }
  };
  socket.on("message", onMessage);
  socket.once("close", onClose);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    socket.send(JSON.stringify({ type: "response.create", ...body }));
    if (signal?.aborted === true) onAbort();
    for (;;) {
      const item = items.shift();
      if (item === undefined) {
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      if ("event" in item && item.event.type === "response.created")
        responseId = item.event.response.id;
      yield item;
    }
  } finally {
    socket.off("message", onMessage);
    socket.off("close", onClose);
    signal?.removeEventListener("abort", onAbort);
  }
}

function frameText(data: WebSocket.RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data).toString("utf8");
}
