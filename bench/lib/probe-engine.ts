// Wraps the served engine to record, per stream, what the engine itself reported (prefill and
// decode time, usage) and when an abort reached it and the stream ended: the engine's own time,
// which the benchmarks subtract from what the client saw to find the serving path's overhead.
import type {
  Engine,
  EngineEvent,
  EngineRequest,
  EngineStreamOptions,
  FinishReason,
  ModelInfo,
  Timings,
  Usage,
} from "../../src/engines/engine.ts";

export interface ProbeRecord {
  /** performance.now() of the serving process. */
  startedAt: number;
  abortedAt: number | null;
  /** The engine's stream has returned: its sequence is free for the next request. */
  endedAt: number;
  timings: Timings | null;
  usage: Usage | null;
  finishReason: FinishReason | null;
}

const MAX_RECORDS = 10_000;

export class ProbeEngine implements Engine {
  readonly records: ProbeRecord[] = [];

  constructor(private readonly inner: Engine) {}

  get kind(): string {
    return this.inner.kind;
  }

  async *stream(
    request: EngineRequest,
    options: EngineStreamOptions = {},
  ): AsyncGenerator<EngineEvent> {
    const record: ProbeRecord = {
      startedAt: performance.now(),
      abortedAt: null,
      endedAt: 0,
      timings: null,
      usage: null,
      finishReason: null,
    };
    const onAbort = (): void => {
      record.abortedAt = performance.now();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const event of this.inner.stream(request, options)) {
        if (event.type === "timings") record.timings = event.timings;
        else if (event.type === "usage") record.usage = event.usage;
        else if (event.type === "finish") record.finishReason = event.reason;
        yield event;
      }
    } finally {
      record.endedAt = performance.now();
      options.signal?.removeEventListener("abort", onAbort);
      this.records.push(record);
      if (this.records.length > MAX_RECORDS) this.records.shift();
    }
  }

  listModels(): Promise<ModelInfo[]> {
    return this.inner.listModels();
  }

  dispose(): Promise<void> {
    return this.inner.dispose();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.inner.dispose();
  }
}
