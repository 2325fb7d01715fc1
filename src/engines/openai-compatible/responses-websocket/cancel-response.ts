// Stopping a response the reader no longer wants: `response.cancel` naming it, then the rest of
// its frames read off in the background until it ends, so the socket's next response starts
// clean. A response not yet named, an upstream that ignores the cancel, or a closed socket: the
// socket is closed instead, which stops generation at any upstream.
import type { ResponsesSocket } from "./responses-socket.ts";
import type { ResponsesSocketPool } from "./responses-socket-pool.ts";

const responseEndings = new Set(["response.completed", "response.incomplete", "response.failed"]);

export function cancelResponse(
  pool: ResponsesSocketPool,
  socket: ResponsesSocket,
  responseId: string | undefined,
  drainMs: number,
): void {
  if (responseId === undefined || socket.closed) {
    pool.retire(socket, 1000, "cancelled");
    return;
  }
  socket.send({ type: "response.cancel", response_id: responseId });
  void drainCancelled(pool, socket, drainMs);
}

async function drainCancelled(
  pool: ResponsesSocketPool,
  socket: ResponsesSocket,
  drainMs: number,
): Promise<void> {
  const deadline = performance.now() + drainMs;
  for (;;) {
    const remaining = deadline - performance.now();
    const message = remaining > 0 ? await socket.next(remaining) : { type: "timeout" as const };
    if (message.type !== "frame") {
      pool.retire(socket, 1000, "cancelled");
      return;
    }
    // An `error` frame may answer the cancel itself (an upstream without it) while the response
    // goes on; only the response's own ending makes the socket clean.
    if (responseEndings.has(frameType(message.text))) {
      pool.release(socket);
      return;
    }
  }
}

function frameType(text: string): string {
  try {
    const frame = JSON.parse(text) as { type?: unknown };
    return typeof frame.type === "string" ? frame.type : "";
  } catch {
    return "";
  }
}
