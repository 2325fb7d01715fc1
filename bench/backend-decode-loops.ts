// Decode speed of the embedded engine's two loops on each llama.cpp backend node-llama-cpp ships
// for this machine, side by side in one run: the CPU backend, and Vulkan on Mesa's lavapipe (a
// software device, shown only to its child process; it stands in for a GPU in CI and shows what
// `gpu: auto` now refuses). Each backend runs in its own child process: the native loop calls the
// one libllama its process's node-llama-cpp loaded. Greedy, best of interleaved rounds, the
// prompt cached before each timed turn.
// Usage: npx tsx bench/backend-decode-loops.ts [--tokens 64] [--rounds 3] [--threads 1]
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { collectStream } from "../src/engines/collect-stream.ts";
import type { EngineRequest } from "../src/engines/engine.ts";
import type { GpuSetting } from "../src/engines/llama-cpp/llama-backend.ts";
import { createLlamaCppEngine } from "../src/engines/llama-cpp/llama-cpp-engine.ts";
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
const loops: DecodeLoop[] = ["native", "node-llama-cpp"];

interface LoopResult {
  loop: DecodeLoop;
  /** The loop the engine ended on (a fallback would show here). */
  ran: DecodeLoop;
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
  const best = new Map<DecodeLoop, LoopResult>();
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const loop of loops) {
      const engine = await createLlamaCppEngine({
        modelPath,
        gpu,
        threads: Number(values.threads),
        sequences: 1,
        contextSize: 1024,
        decodeLoop: loop,
      });
      try {
        await collectStream(engine.stream({ ...request(tokens), prefillOnly: true }));
        const result = await collectStream(engine.stream(request(tokens)));
        if (result.error !== undefined) throw result.error;
        const sample = {
          loop,
          ran: engine.decodeLoop,
          tokensPerSecond: result.timings?.decodeTokensPerSecond ?? 0,
          outputTokens: result.usage?.outputTokens ?? 0,
          gpuLayers: engine.gpuLayers,
        };
        const previous = best.get(loop);
        if (previous === undefined || sample.tokensPerSecond > previous.tokensPerSecond) {
          best.set(loop, sample);
        }
      } finally {
        await engine.dispose();
      }
    }
  }
  return loops.flatMap((loop) => best.get(loop) ?? []);
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
    "| backend | layers on the device | native loop tokens/s | node-llama-cpp loop tokens/s | native ÷ node-llama-cpp |",
  );
  console.log("|---|---|---|---|---|");
  for (const backend of backends) {
    const [native, fallback] = await inChild(backend.gpu, backend.env);
    if (native === undefined || fallback === undefined)
      throw new Error(`${backend.label}: no result`);
    if (native.ran !== "native") throw new Error(`${backend.label}: the native loop fell back`);
    console.log(
      `| ${backend.label} | ${native.gpuLayers} | ${native.tokensPerSecond.toFixed(1)} | ` +
        `${fallback.tokensPerSecond.toFixed(1)} | ${(native.tokensPerSecond / fallback.tokensPerSecond).toFixed(2)}× |`,
    );
  }
}
