// What node-llama-cpp loads on this machine: backend, devices and VRAM, the CUDA library it
// mapped and the architectures that library carries code for, next to what nvidia-smi reports.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import {
  readCudaArchitectures,
  type CudaArchitectures,
} from "../../engines/llama-cpp/device/cuda-fatbin.ts";
import { queryNvidiaGpus, type NvidiaGpu } from "../../engines/llama-cpp/device/nvidia-gpus.ts";
import { getSharedLlama } from "../../engines/llama-cpp/load-model.ts";

export type BackendName = "CUDA" | "Vulkan" | "Metal" | "CPU";

export interface LlamaBackendReport {
  backend: BackendName;
  /** "prebuilt" (shipped with node-llama-cpp) or "localBuild" (`node-llama-cpp source build`). */
  buildType: "prebuilt" | "localBuild" | undefined;
  llamaCppRelease: string | undefined;
  /** CMake options of a local build (CMAKE_CUDA_ARCHITECTURES among them when it was set). */
  cmakeOptions: Record<string, string>;
  devices: string[];
  vram: { totalBytes: number; freeBytes: number } | undefined;
  cpuMathCores: number | undefined;
  /** getLlama() in this process: loading the native backend (and with CUDA, initializing it). */
  loadMs: number | undefined;
  /** The ggml CUDA library this process mapped, and what it carries; only with CUDA. */
  cudaLibrary: { path: string; architectures: CudaArchitectures | undefined } | undefined;
  nvidiaGpus: NvidiaGpu[];
  /** Why node-llama-cpp could not start at all. */
  error: string | undefined;
}

const backendNames = { cuda: "CUDA", vulkan: "Vulkan", metal: "Metal" } as const;

export async function probeLlamaBackend(): Promise<LlamaBackendReport> {
  const nvidiaGpus = queryNvidiaGpus();
  const startedAt = performance.now();
  try {
    // The embedded engine's own backend with its default GPU setting: what a model would load on.
    const llama = await getSharedLlama("auto");
    const loadMs = Math.round(performance.now() - startedAt);
    const gpu = llama.gpu;
    const [devices, vram] =
      gpu === false
        ? [[], undefined]
        : await Promise.all([llama.getGpuDeviceNames(), llama.getVramState()]);
    const cudaLibraryPath = gpu === "cuda" ? await mappedLibrary("libggml-cuda") : undefined;
    return {
      backend: gpu === false ? "CPU" : backendNames[gpu],
      buildType: llama.buildType,
      llamaCppRelease: llama.llamaCppRelease.release,
      cmakeOptions: { ...llama.cmakeOptions },
      devices,
      vram: vram === undefined ? undefined : { totalBytes: vram.total, freeBytes: vram.free },
      cpuMathCores: llama.cpuMathCores,
      loadMs,
      cudaLibrary:
        cudaLibraryPath === undefined
          ? undefined
          : {
              path: cudaLibraryPath,
              architectures: await readCudaArchitectures(cudaLibraryPath).catch(() => undefined),
            },
      nvidiaGpus: await nvidiaGpus,
      error: undefined,
    };
  } catch (error) {
    return {
      backend: "CPU",
      buildType: undefined,
      llamaCppRelease: undefined,
      cmakeOptions: {},
      devices: [],
      vram: undefined,
      cpuMathCores: undefined,
      loadMs: undefined,
      cudaLibrary: undefined,
      nvidiaGpus: await nvidiaGpus,
      error: String(error),
    };
  }
}

/** The path of a shared library this process has mapped (Linux: /proc/self/maps), if any. */
async function mappedLibrary(namePrefix: string): Promise<string | undefined> {
  try {
    const maps = await readFile("/proc/self/maps", "utf8");
    for (const line of maps.split("\n")) {
      const pathStart = line.indexOf("/");
      if (pathStart === -1) continue;
      const path = line.slice(pathStart);
      if (basename(path).startsWith(namePrefix)) return path;
    }
  } catch {
    // Not Linux: the library cannot be told apart, so no architecture check.
  }
  return undefined;
}
