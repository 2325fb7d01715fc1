// Frames beyond the hard limit are cut off by the ws library itself (close 1009) before they are
// buffered; this makes sure the client also learns why, with a frame_too_large error event first.
import { WebSocket } from "ws";
import { errorEvent } from "../wire/error-event.ts";
import { WireError } from "../wire/wire-error.ts";

const MESSAGE_TOO_BIG = 1009;

export function announceOversizedFrames(
  socket: WebSocket,
  maxFrameBytes: number,
  hardLimitBytes: number,
): void {
  const close = socket.close.bind(socket);
  // ws calls close(1009) on the socket before it emits its 'error', and nothing can be sent once it
  // has: wrapping close is the one place the event can still go out ahead of the close frame.
  socket.close = (code?: number, reason?: string | Buffer): void => {
    if (code !== MESSAGE_TOO_BIG || socket.readyState !== WebSocket.OPEN)
      return close(code, reason);
    const error = new WireError(
      "invalid_request",
      `A frame was over ${hardLimitBytes} bytes, far beyond this server's limit of ${maxFrameBytes} (max_frame_bytes), so the connection is closed. Send less input per turn, or chain turns with previous_response_id.`,
      { wireCode: "frame_too_large", status: 413 },
    );
    socket.send(JSON.stringify(errorEvent(error, 0)));
    close(MESSAGE_TOO_BIG, "frame too large (max_frame_bytes)");
  };
}
