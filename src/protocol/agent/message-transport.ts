// How agent-protocol messages travel: a WebSocket (browser or `ws`), or an in-memory pair when the
// terminal UI runs the app server in its own process. Both sides only see text frames.

export interface TransportCloseInfo {
  code?: number;
  reason?: string;
}

export interface MessageTransport {
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: (info: TransportCloseInfo) => void): void;
}

/** The part of a WebSocket both the browser's and the `ws` package's expose. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: "close",
    listener: (event: { code: number; reason: string }) => void,
  ): void;
}

const WEB_SOCKET_OPEN = 1;

export function webSocketTransport(socket: WebSocketLike): MessageTransport {
  return {
    send(text) {
      if (socket.readyState === WEB_SOCKET_OPEN) socket.send(text);
    },
    close(code, reason) {
      socket.close(code, reason);
    },
    onMessage(listener) {
      socket.addEventListener("message", (event) => {
        if (typeof event.data === "string") listener(event.data);
        else if (event.data instanceof ArrayBuffer) listener(new TextDecoder().decode(event.data));
        else listener(String(event.data));
      });
    },
    onClose(listener) {
      socket.addEventListener("close", (event) =>
        listener({ code: event.code, reason: event.reason }),
      );
    },
  };
}

/** Two connected ends; a message is delivered on a later microtask, as a socket would. */
export function createInMemoryTransportPair(): [MessageTransport, MessageTransport] {
  const left = new InMemoryEnd();
  const right = new InMemoryEnd();
  left.peer = right;
  right.peer = left;
  return [left, right];
}

class InMemoryEnd implements MessageTransport {
  peer: InMemoryEnd | undefined;
  private closed = false;
  private readonly messageListeners: ((text: string) => void)[] = [];
  private readonly closeListeners: ((info: TransportCloseInfo) => void)[] = [];

  send(text: string): void {
    const peer = this.peer;
    if (this.closed || peer === undefined) return;
    queueMicrotask(() => peer.deliver(text));
  }

  close(code = 1000, reason = ""): void {
    if (this.closed) return;
    this.finish({ code, reason });
    const peer = this.peer;
    if (peer !== undefined) queueMicrotask(() => peer.finish({ code, reason }));
  }

  onMessage(listener: (text: string) => void): void {
    this.messageListeners.push(listener);
  }

  onClose(listener: (info: TransportCloseInfo) => void): void {
    this.closeListeners.push(listener);
  }

  private deliver(text: string): void {
    if (this.closed) return;
    for (const listener of this.messageListeners) listener(text);
  }

  private finish(info: TransportCloseInfo): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners) listener(info);
  }
}
