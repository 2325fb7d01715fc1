// Reads a POST /v1/responses event stream as it arrives: the events parsed, a wait for the one a
// test expects, and the end (or the cut) of the stream.
export interface SseEvent {
  type: string;
  sequence_number: number;
  [key: string]: unknown;
}

export interface SseReader {
  readonly events: SseEvent[];
  /** Resolves once an event matches (rejects when the stream ends first). */
  waitFor(match: (event: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  /** Resolves when the stream ends: "ended" cleanly, or "cut" (the connection failed). */
  readonly ended: Promise<"ended" | "cut">;
}

export function readSse(response: Response): SseReader {
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let finished = false;
  const wake = (): void => waiters.forEach((waiter) => waiter());
  const ended = (async (): Promise<"ended" | "cut"> => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return "ended";
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split("\n").find((line) => line.startsWith("data: "));
          if (data !== undefined) events.push(JSON.parse(data.slice(6)) as SseEvent);
        }
        wake();
      }
    } catch {
      return "cut";
    } finally {
      finished = true;
      wake();
    }
  })();
  return {
    events,
    ended,
    waitFor(match, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`no matching event in ${timeoutMs} ms: ${JSON.stringify(events.at(-1))}`),
          );
        }, timeoutMs);
        const check = (): void => {
          const found = events.find(match);
          if (found === undefined && !finished) return;
          clearTimeout(timer);
          waiters.delete(check);
          if (found === undefined) reject(new Error("the stream ended first"));
          else resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

export function deltaText(events: readonly { type: string; delta?: unknown }[]): string {
  return events
    .filter((event) => event.type === "response.output_text.delta")
    .map((event) => String(event.delta))
    .join("");
}
