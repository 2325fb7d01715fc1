// Which GPU backend node-llama-cpp would use here (prebuilt binaries only, never a build) and the
// device names, so the GPU scenario can run, skip, or say plainly that it fell back to the CPU.
// Asked in a child process: loading a second native backend into the benchmark's own process
// could clash with the CPU one its in-process engine uses.
import { fileURLToPath } from "node:url";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { forkTypeScript } from "./fork-typescript.ts";

export interface GpuInfo {
  backend: "cuda" | "vulkan" | "metal" | false;
  devices: string[];
}

/** In this process, and left loaded: node-llama-cpp's native module is shared per process, so
 * disposing this instance would also tear down an engine's. */
export async function detectGpuHere(): Promise<GpuInfo> {
  try {
    const llama = await getLlama({
      gpu: "auto",
      build: "never",
      logLevel: LlamaLogLevel.error,
      progressLogs: false,
    });
    const backend = llama.gpu;
    return { backend, devices: backend === false ? [] : await llama.getGpuDeviceNames() };
  } catch {
    return { backend: false, devices: [] };
  }
}

export function detectGpu(): Promise<GpuInfo> {
  const child = forkTypeScript(fileURLToPath(import.meta.url), ["--report"]);
  return new Promise((resolve) => {
    let answered = false;
    child.once("message", (message: GpuInfo) => {
      answered = true;
      resolve(message);
    });
    child.once("exit", () => {
      if (!answered) resolve({ backend: false, devices: [] });
    });
  });
}

if (process.argv[2] === "--report" && process.send !== undefined) {
  const info = await detectGpuHere();
  process.send(info, () => process.exit(0));
}
