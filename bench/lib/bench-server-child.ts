// The serving process of a benchmark: the gateway exactly as `spark serve` builds it (createGateway
// over one engine), in its own process so its CPU time is its own; driven over IPC by the parent.
import type { Engine } from "../../src/engines/engine.ts";
import { createLlamaCppEngine } from "../../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { SpeculationReport } from "../../src/engines/llama-cpp/speculative-decode.ts";
import { createSyntheticEngine } from "../../src/engines/synthetic/synthetic-engine.ts";
import { createGateway, modelsFromEngine } from "../../src/gateway/index.ts";
import { SparkError } from "../../src/protocol/spark-error.ts";
import { forksWithoutTsx } from "../../test/support/forks-without-tsx.ts";
import type {
  BenchServerSpec,
  ChildMessage,
  ChildReply,
  ParentMessage,
} from "./bench-server-protocol.ts";
import { detectGpuHere } from "./detect-gpu.ts";
import { startEchoServer } from "./echo-server.ts";
import { runInProcessStreams } from "./in-process-streams.ts";
import { ProbeEngine } from "./probe-engine.ts";

// node-llama-cpp forks this process to test its binary before loading it; without tsx's loader
// that fork starts in ~0.1 s of CPU instead of ~0.8 s (one per server the scenarios start).
forksWithoutTsx();

function send(message: ChildMessage): void {
  process.send?.(message);
}

/** The embedded engine's latest prompt-lookup report, until the probe takes it. */
let latestSpeculation: SpeculationReport | undefined;

async function createEngine(
  spec: BenchServerSpec,
): Promise<{ engine: Engine; device: string; onGpu: boolean }> {
  const engineSpec = spec.engine;
  if (engineSpec.kind === "synthetic") {
    return {
      engine: createSyntheticEngine({
        tokensPerSecond: engineSpec.tokensPerSecond,
        tokens: engineSpec.tokens,
      }),
      device: "none (synthetic)",
      onGpu: false,
    };
  }
  // Asked before the engine loads, so both use the one backend node-llama-cpp picks for "auto".
  const gpu =
    engineSpec.gpu === "auto"
      ? await detectGpuHere()
      : { backend: false as const, devices: [] as string[] };
  const engine = await createLlamaCppEngine({
    modelPath: engineSpec.modelPath,
    threads: engineSpec.threads,
    contextSize: engineSpec.contextSize,
    sequences: engineSpec.sequences,
    speculative: engineSpec.speculative ?? false,
    ...(engineSpec.decodeLoop === undefined ? {} : { decodeLoop: engineSpec.decodeLoop }),
    ...(engineSpec.fimOrder === undefined ? {} : { fimOrder: engineSpec.fimOrder }),
    ...(engineSpec.fimSplit === undefined ? {} : { fimSplit: engineSpec.fimSplit }),
    gpu: engineSpec.gpu ?? false,
    onSpeculation: (report) => {
      latestSpeculation = report;
    },
  });
  const where =
    gpu.backend === false
      ? `CPU, ${engine.threads} threads`
      : `${gpu.backend}: ${gpu.devices.join(", ")}, ${engine.gpuLayers} layers offloaded`;
  return {
    engine,
    device: `${where}, context ${engine.contextSize}, ${engine.decodeLoop} decode loop`,
    onGpu: gpu.backend !== false,
  };
}

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as BenchServerSpec;
  const created = await createEngine(spec);
  const probe = spec.probe
    ? new ProbeEngine(created.engine, () => {
        const report = latestSpeculation;
        latestSpeculation = undefined;
        return report;
      })
    : undefined;
  const engine: Engine = probe ?? created.engine;
  const models = await engine.listModels();
  const gateway = createGateway({
    models: modelsFromEngine(engine),
    config: { host: "127.0.0.1", port: 0, maxConcurrencyPerKey: 4096, ...spec.serve },
  });
  const { url } = await gateway.listen();
  const echo = await startEchoServer();

  const close = async (): Promise<void> => {
    echo.server.closeAllConnections();
    echo.server.close();
    await gateway.close();
    await engine.dispose();
  };
  process.on("message", (message: ParentMessage) => {
    void handle(message).then(
      (reply) => send(reply),
      (error: unknown) =>
        send({ id: message.id, type: "failed", message: SparkError.from(error).message }),
    );
  });
  // The parent went away: do not linger holding a model and a port.
  process.on("disconnect", () => void close().finally(() => process.exit(0)));

  async function handle(message: ParentMessage): Promise<ChildReply> {
    switch (message.type) {
      case "cpu-usage": {
        const usage = process.cpuUsage();
        return { id: message.id, type: "cpu-usage", micros: usage.user + usage.system };
      }
      case "probe-records": {
        const records = [...(probe?.records ?? [])];
        if (message.clear) probe?.records.splice(0);
        return { id: message.id, type: "probe-records", records };
      }
      case "in-process-run": {
        const result = await runInProcessStreams(created.engine, message);
        return { id: message.id, type: "in-process-run", result };
      }
      case "close":
        await close();
        return { id: message.id, type: "closed" };
      default:
        message satisfies never;
        throw new SparkError("invalid_request", "Unknown bench server message.");
    }
  }

  send({
    type: "ready",
    url,
    echoUrl: echo.url,
    model: models[0]?.id ?? "",
    contextLength: models[0]?.contextLength ?? null,
    onGpu: created.onGpu,
    device: created.device,
  });
}

main().catch((error: unknown) => {
  send({ type: "startup-failed", message: SparkError.from(error).message });
  process.exitCode = 1;
  process.disconnect?.();
});
