// Server-sent events read from a fetch body: `event:` and `data:` fields, one event per blank line.

export interface ServerSentEvent {
  event: string | undefined;
  data: string;
}

export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = "";
  let eventName: string | undefined;
  let dataLines: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // A body may end without the final newline; its last line still counts.
      if (done && buffer !== "") buffer += "\n";
      let newline = buffer.search(/\r?\n/);
      while (newline !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === "\r" ? newline + 2 : newline + 1);
        if (line === "") {
          if (dataLines.length > 0) yield { event: eventName, data: dataLines.join("\n") };
          eventName = undefined;
          dataLines = [];
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") dataLines.push(value);
          else if (field === "event") eventName = value;
        }
        newline = buffer.search(/\r?\n/);
      }
      if (done) break;
    }
    if (dataLines.length > 0) yield { event: eventName, data: dataLines.join("\n") };
  } finally {
    // An early return (a filter stopped the completion) must release the connection.
    await reader.cancel().catch(() => undefined);
  }
}
