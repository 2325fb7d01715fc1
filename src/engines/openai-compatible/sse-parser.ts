// Server-sent events from raw bytes, per the WHATWG event-stream rules: chunks may split anywhere
// (inside a UTF-8 character, between CR and LF), lines end in LF, CRLF or CR, ":" lines are
// comments (keep-alive pings), and several data lines join with "\n". An event may be capped in
// size, so a server that never ends its line cannot make the reader buffer without bound.
import { SparkError } from "../../protocol/spark-error.ts";

export interface SseEvent {
  /** "message" unless the server named the event. */
  event: string;
  data: string;
  id: string | undefined;
}

export class SseParser {
  private readonly decoder = new TextDecoder("utf-8");
  private pending = "";
  /** A chunk ended in CR: a LF at the start of the next one belongs to the same line ending. */
  private skipLeadingLineFeed = false;
  private dataLines: string[] = [];
  private eventName = "";
  private lastEventId: string | undefined;
  /** Characters held for the event being read: its data lines so far and the unfinished line. */
  private dataCharacters = 0;

  /** `maxEventCharacters`: the most one event (all its lines) may hold; unlimited by default. */
  constructor(private readonly maxEventCharacters = Number.POSITIVE_INFINITY) {}

  /** Feeds bytes; returns the events they completed, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    return this.consume(this.decoder.decode(chunk, { stream: true }), false);
  }

  /**
   * The body ended. A last event without its closing blank line is still dispatched, so a cut-off
   * final data line reaches the JSON parser and fails there, loudly, instead of vanishing.
   */
  end(): SseEvent[] {
    return this.consume(this.decoder.decode(), true);
  }

  private consume(text: string, atEnd: boolean): SseEvent[] {
    const events: SseEvent[] = [];
    let buffer = this.pending + text;
    let start = 0;
    if (this.skipLeadingLineFeed && buffer.length > 0) {
      if (buffer.charCodeAt(0) === 0x0a) start = 1;
      this.skipLeadingLineFeed = false;
    }
    for (;;) {
      const lineFeed = buffer.indexOf("\n", start);
      const carriageReturn = buffer.indexOf("\r", start);
      let lineEnd: number;
      if (carriageReturn !== -1 && (lineFeed === -1 || carriageReturn < lineFeed))
        lineEnd = carriageReturn;
      else if (lineFeed !== -1) lineEnd = lineFeed;
      else break;
      this.processLine(buffer.slice(start, lineEnd), events);
      start = lineEnd + 1;
      if (buffer.charCodeAt(lineEnd) === 0x0d) {
        if (start < buffer.length) {
          if (buffer.charCodeAt(start) === 0x0a) start += 1;
        } else {
          this.skipLeadingLineFeed = true;
        }
      }
    }
    buffer = buffer.slice(start);
    if (this.dataCharacters + buffer.length > this.maxEventCharacters) {
      throw new SparkError(
        "upstream_error",
        `The upstream sent a server-sent event over ${this.maxEventCharacters} characters; the stream was stopped.`,
        { retryable: true },
      );
    }
    if (atEnd) {
      if (buffer !== "") this.processLine(buffer, events);
      this.processLine("", events);
      buffer = "";
    }
    this.pending = buffer;
    return events;
  }

  private processLine(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.dataLines.length > 0) {
        events.push({
          event: this.eventName || "message",
          data: this.dataLines.join("\n"),
          id: this.lastEventId,
        });
      }
      this.dataLines = [];
      this.dataCharacters = 0;
      this.eventName = "";
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // ":" comment, e.g. ": ping" or ": OPENROUTER PROCESSING"
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case "data":
        this.dataLines.push(value);
        this.dataCharacters += value.length;
        break;
      case "event":
        this.eventName = value;
        break;
      case "id":
        if (!value.includes("\u0000")) this.lastEventId = value;
        break;
      default:
        // "retry" and unknown fields: nothing a one-shot HTTP stream can use.
        break;
    }
  }
}
