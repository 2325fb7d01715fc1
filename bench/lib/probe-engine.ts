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
import type { SpeculationReport } from "../../src/engines/llama-cpp/speculative-decode.ts";

export interface ProbeRecord {
  /** performance.now() of the serving process. */
  startedAt: number;
  abortedAt: number | null;
  /** The engine's stream has returned: its sequence is free for the next request. */
  endedAt: number;
  timings: Timings | null;
  usage: Usage | null;
  finishReason: FinishReason | null;
  /** The embedded engine's prompt-lookup run, when the stream drafted. */
  speculation: SpeculationReport | null;
}

const MAX_RECORDS = 10_000;

export class ProbeEngine implements Engine {
  readonly records: ProbeRecord[] = [];

  /** @param takeSpeculation the inner engine's report of the stream that just ended, if any */
  constructor(
    private readonly inner: Engine,
    private readonly takeSpeculation: () => SpeculationReport | undefined = () => undefined,
  ) {}

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
      speculation: null,
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
      record.speculation = this.takeSpeculation() ?? null;
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
