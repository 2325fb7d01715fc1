// JSON schema → GBNF text on a worker thread, one schema at a time, abandoned when its request
// goes away. node-llama-cpp's converter is synchronous JavaScript (50 ms for 5,000 properties):
// on the main thread every other tenant's stream and the event loop would wait for it.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { SparkError } from "../../../protocol/spark-error.ts";

/**
 * The converter behind `llama.createGrammarForJsonSchema` (same default options). The package
 * does not export it; gbnf-builder.test.ts holds its output to the public API's.
 */
const CONVERTER_PATH = "utils/gbnfJson/getGbnfGrammarForGbnfJsonSchema.js";

// CommonJS, evaluated: a worker does not inherit the tsx loader the CLI runs under.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const converter = import(workerData.converterUrl);
parentPort.on("message", async (schema) => {
  try {
    const { getGbnfGrammarForGbnfJsonSchema } = await converter;
    parentPort.postMessage({ text: getGbnfGrammarForGbnfJsonSchema(schema) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Job {
  schema: object;
  signal: AbortSignal | undefined;
  resolve: (text: string) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

type WorkerReply = { text: string } | { error: string };

export class GbnfBuilder {
  private worker: Worker | undefined;
  private running: Job | undefined;
  private readonly queue: Job[] = [];

  /** The GBNF node-llama-cpp writes for `schema`; rejects with `cancelled` when `signal` aborts. */
  build(schema: object, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted === true) return Promise.reject(cancelledError());
    return new Promise<string>((resolve, reject) => {
      const job: Job = { schema, signal, resolve, reject, onAbort: () => this.abandon(job) };
      signal?.addEventListener("abort", job.onAbort, { once: true });
      this.queue.push(job);
      this.startNext();
    });
  }

  /** Stops the worker; builds under way reject. */
  async dispose(): Promise<void> {
    const jobs = [...(this.running === undefined ? [] : [this.running]), ...this.queue];
    this.queue.length = 0;
    this.running = undefined;
    const disposed = new SparkError("engine_disposed", "The llama-cpp engine was disposed.");
    for (const job of jobs) fail(job, disposed);
    await this.stopWorker();
  }

  private startNext(): void {
    if (this.running !== undefined) return;
    const job = this.queue.shift();
    if (job === undefined) return;
    this.running = job;
    const worker = this.startedWorker();
    worker.ref();
    worker.postMessage(job.schema);
  }

  private startedWorker(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { converterUrl: converterUrl() },
    });
    worker.on("message", (reply: WorkerReply) => this.finished(reply));
    worker.on("error", (error) => this.failed(worker, error));
    worker.on("exit", () => {
      if (this.worker === worker) this.failed(worker, new Error("the grammar worker exited"));
    });
    this.worker = worker;
    return worker;
  }

  private finished(reply: WorkerReply): void {
    const job = this.running;
    this.running = undefined;
    // An idle worker must not keep the process alive.
    this.worker?.unref();
    if (job !== undefined) {
      job.signal?.removeEventListener("abort", job.onAbort);
      if ("text" in reply) job.resolve(reply.text);
      else job.reject(new Error(reply.error));
    }
    this.startNext();
  }

  private failed(worker: Worker, error: unknown): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const job = this.running;
    this.running = undefined;
    if (job !== undefined) fail(job, error);
    this.startNext();
  }

  /** A request that went away: dropped from the queue, or its build stopped mid-way. */
  private abandon(job: Job): void {
    const queued = this.queue.indexOf(job);
    if (queued !== -1) this.queue.splice(queued, 1);
    if (this.running === job) {
      // The converter cannot be interrupted: the worker goes, the next build starts a new one.
      this.running = undefined;
      void this.stopWorker();
    }
    fail(job, cancelledError());
    this.startNext();
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}

function converterUrl(): string {
  const require = createRequire(import.meta.url);
  return pathToFileURL(join(dirname(require.resolve("node-llama-cpp")), CONVERTER_PATH)).href;
}

function cancelledError(): SparkError {
  return new SparkError("cancelled", "The request was cancelled while its grammar was built.");
}

function fail(job: Job, error: unknown): void {
  job.signal?.removeEventListener("abort", job.onAbort);
  job.reject(error);
}
