// The benchmark's handle on a serving process (bench-server-child.ts): start it, ask it for its
// CPU time, its engine's own timings and in-process baseline runs, and stop it.
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { SparkError } from "../../src/protocol/spark-error.ts";
import type {
  BenchServerSpec,
  ChildMessage,
  ChildReply,
  ParentMessage,
} from "./bench-server-protocol.ts";
import { forkTypeScript } from "./fork-typescript.ts";
import type { InProcessRunOptions, InProcessRunResult } from "./in-process-streams.ts";
import type { ProbeRecord } from "./probe-engine.ts";

const childPath = fileURLToPath(new URL("./bench-server-child.ts", import.meta.url));

type Request = ParentMessage extends infer Message
  ? Message extends { id: number }
    ? Omit<Message, "id">
    : never
  : never;

export class BenchServer {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: ChildReply) => void>();
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    /** The serving process's bare echo endpoint, for the transport floor. */
    readonly echoUrl: string,
    readonly model: string,
    readonly contextLength: number | null,
    readonly onGpu: boolean,
    readonly device: string,
  ) {
    child.on("message", (message: ChildMessage) => {
      if (!("id" in message)) return;
      const resolve = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      resolve?.(message);
    });
    child.on("exit", () => {
      this.exited = true;
      for (const resolve of this.waiting.values())
        resolve({ id: -1, type: "failed", message: "The bench server exited." });
      this.waiting.clear();
    });
  }

  static async start(spec: BenchServerSpec, signal?: AbortSignal): Promise<BenchServer> {
    const child = forkTypeScript(childPath, [JSON.stringify(spec)]);
    const ready = await new Promise<Extract<ChildMessage, { type: "ready" }>>((resolve, reject) => {
      const onAbort = (): void => {
        child.kill();
        reject(SparkError.from(signal?.reason, "cancelled"));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      child.once("message", (message: ChildMessage) => {
        signal?.removeEventListener("abort", onAbort);
        if (message.type === "ready") resolve(message);
        else
          reject(
            new SparkError(
              "internal_error",
              `The bench server did not start: ${"message" in message ? message.message : message.type}`,
            ),
          );
      });
      child.once("exit", (code) =>
        reject(
          new SparkError("internal_error", `The bench server exited (${code}) while starting.`),
        ),
      );
    });
    return new BenchServer(
      child,
      ready.url,
      ready.echoUrl,
      ready.model,
      ready.contextLength,
      ready.onGpu,
      ready.device,
    );
  }

  /** CPU time (user + system, µs) the serving process has used so far. */
  async cpuMicros(): Promise<number> {
    const reply = await this.ask({ type: "cpu-usage" });
    return reply.type === "cpu-usage" ? reply.micros : Number.NaN;
  }

  /** The engine's own record of each stream since the last clear, oldest first. */
  async probeRecords(clear = true): Promise<ProbeRecord[]> {
    const reply = await this.ask({ type: "probe-records", clear });
    return reply.type === "probe-records" ? reply.records : [];
  }

  async runInProcess(options: InProcessRunOptions): Promise<InProcessRunResult> {
    const reply = await this.ask({ type: "in-process-run", ...options });
    if (reply.type !== "in-process-run") throw failure(reply);
    return reply.result;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.ask({ type: "close" }).catch(() => undefined);
    this.child.disconnect();
    await exited;
    clearTimeout(timer);
  }

  private ask(request: Request): Promise<ChildReply> {
    if (this.exited) return Promise.reject(new SparkError("internal_error", "Bench server gone."));
    const id = this.nextId++;
    return new Promise<ChildReply>((resolve, reject) => {
      this.waiting.set(id, (reply) =>
        reply.type === "failed" ? reject(failure(reply)) : resolve(reply),
      );
      this.child.send({ ...request, id });
    });
  }
}

function failure(reply: ChildReply): SparkError {
  return new SparkError(
    "internal_error",
    reply.type === "failed" ? reply.message : `Unexpected bench server reply ${reply.type}.`,
  );
}
