// Decode speed of the embedded engine's two loops on each llama.cpp backend node-llama-cpp ships
// for this machine, side by side in one run: the CPU backend, and Vulkan on Mesa's lavapipe (a
// software device, shown only to its child process; it stands in for a GPU in CI and shows what
// `gpu: auto` now refuses). Each backend runs in its own child process: the native loop calls the
// one libllama its process's node-llama-cpp loaded. The native loop runs twice: sampling on
// llama.cpp's backend (deviceSampling "auto") and on the host ("off"). Greedy, best of
// interleaved rounds, the prompt cached before each timed turn.
// Usage: npx tsx bench/backend-decode-loops.ts [--tokens 64] [--rounds 3] [--threads 1]
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { EngineRequest } from "../src/engines/engine.ts";
import type { GpuSetting } from "../src/engines/llama-cpp/llama-backend.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
import type { DeviceSamplingMode } from "../src/engines/llama-cpp/native-loop/device-sampling-mode.ts";
import type { DecodeLoop } from "../src/engines/llama-cpp/native-loop/open-native-loop.ts";
import { findLavapipeIcd, lavapipeEnvironment } from "../test/support/lavapipe.ts";
import { ensureTestModel } from "../test/support/test-model.ts";

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    tokens: { type: "string", default: "64" },
    rounds: { type: "string", default: "3" },
    threads: { type: "string", default: "1" },
    child: { type: "string" },
  },
});
interface Variant {
  name: "native, device sampling" | "native, host sampling" | "node-llama-cpp";
  loop: DecodeLoop;
  deviceSampling: DeviceSamplingMode;
}
const variants: Variant[] = [
  { name: "native, device sampling", loop: "native", deviceSampling: "on" },
  { name: "native, host sampling", loop: "native", deviceSampling: "off" },
  { name: "node-llama-cpp", loop: "node-llama-cpp", deviceSampling: "off" },
];

interface LoopResult {
  variant: Variant["name"];
  loop: DecodeLoop;
  /** The loop the engine ended on (a fallback would show here). */
  ran: DecodeLoop;
  /** Where the native loop sampled (the engine's report). */
  sampling: string | undefined;
  tokensPerSecond: number;
  outputTokens: number;
  gpuLayers: number;
}

function request(tokens: number): EngineRequest {
  return {
    messages: [{ role: "user", content: "Write a long note about compilers." }],
    sampling: { temperature: 0, maxOutputTokens: tokens },
  };
}

/** In the child: both loops on one backend, best of interleaved rounds. */
async function measureBackend(gpu: GpuSetting): Promise<LoopResult[]> {
  const modelPath = await ensureTestModel();
  const tokens = Number(values.tokens);
  const best = new Map<Variant["name"], LoopResult>();
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const { name, loop, deviceSampling } of variants) {
      const engine = await createLlamaCppEngine({
        modelPath,
        gpu,
        threads: Number(values.threads),
        sequences: 1,
        contextSize: 1024,
        decodeLoop: loop,
        deviceSampling,
      });
      try {
        await collectStream(engine.stream({ ...request(tokens), prefillOnly: true }));
        const result = await collectStream(engine.stream(request(tokens)));
        if (result.error !== undefined) throw result.error;
        const sample = {
          variant: name,
          loop,
          ran: engine.decodeLoop,
          sampling: result.timings?.sampling,
          tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
          outputTokens: result.usage?.outputTokens ?? 0,
          gpuLayers: engine.gpuLayers,
        };
        const previous = best.get(name);
        if (previous === undefined || sample.tokensPerSecond > previous.tokensPerSecond) {
          best.set(name, sample);
        }
      } finally {
        await engine.dispose();
      }
    }
  }
  return variants.flatMap(({ name }) => best.get(name) ?? []);
}

async function inChild(gpu: string, env: NodeJS.ProcessEnv): Promise<LoopResult[]> {
  const script = fileURLToPath(import.meta.url);
  const flags = ["--tokens", values.tokens, "--rounds", values.rounds, "--threads", values.threads];
  const { stdout } = await run(
    process.execPath,
    [...process.execArgv, script, ...flags, "--child", gpu],
    {
      env,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "[]") as LoopResult[];
}

if (values.child !== undefined) {
  const gpu = (values.child === "false" ? false : values.child) as GpuSetting;
  process.stdout.write(JSON.stringify(await measureBackend(gpu)) + "\n");
} else {
  const cpuEnvironment = { ...process.env };
  delete cpuEnvironment.VK_ICD_FILENAMES;
  const backends: { label: string; gpu: string; env: NodeJS.ProcessEnv }[] = [
    { label: "CPU backend", gpu: "false", env: cpuEnvironment },
  ];
  const icd = findLavapipeIcd();
  if (icd === undefined) {
    console.log("lavapipe rows skipped: no lavapipe ICD (apt-get install -y mesa-vulkan-drivers)");
  } else {
    backends.push(
      {
        label: "Vulkan on lavapipe (gpu = vulkan)",
        gpu: "vulkan",
        env: lavapipeEnvironment(icd, true),
      },
      { label: "lavapipe present, gpu = auto", gpu: "auto", env: lavapipeEnvironment(icd, true) },
    );
  }
  console.log(
    `tiny test model, ${values.tokens} tokens greedy, ${values.threads} thread(s), best of ${values.rounds} rounds\n`,
  );
  console.log(
    "| backend | layers on the device | native, device sampling tokens/s | native, host sampling tokens/s | " +
      "node-llama-cpp loop tokens/s | device ÷ host sampling | native (device) ÷ node-llama-cpp |",
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const backend of backends) {
    const [device, host, fallback] = await inChild(backend.gpu, backend.env);
    if (device === undefined || host === undefined || fallback === undefined)
      throw new Error(`${backend.label}: no result`);
    if (device.ran !== "native" || host.ran !== "native") {
      throw new Error(`${backend.label}: the native loop fell back`);
    }
    // A row must measure the sampler it is named after.
    if (device.sampling !== "device" || host.sampling !== "host") {
      throw new Error(`${backend.label}: sampled on ${device.sampling} / ${host.sampling}`);
    }
    const ratio = (over: LoopResult, under: LoopResult): string =>
      `${(over.tokensPerSecond / under.tokensPerSecond).toFixed(2)}×`;
    console.log(
      `| ${backend.label} | ${device.gpuLayers} | ${device.tokensPerSecond.toFixed(1)} | ` +
        `${host.tokensPerSecond.toFixed(1)} | ${fallback.tokensPerSecond.toFixed(1)} | ` +
        `${ratio(device, host)} | ${ratio(device, fallback)} |`,
    );
  }
}
