// What node-llama-cpp loads on this machine: backend, devices and VRAM, the GPU backends `auto`
// refused for computing on the CPU, the CUDA library it mapped and the architectures that library
// carries code for, next to what nvidia-smi reports.
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { readCudaArchitectures, type CudaArchitectures } from "../../engines/llama-cpp/inspect.ts";
import { queryNvidiaGpus, type NvidiaGpu } from "../../engines/llama-cpp/inspect.ts";
import {
  getSharedLlamaBackend,
  gpuBackendNames,
  gpuRefusalPath,
  readRememberedRefusal,
  type GpuSetting,
} from "../../engines/llama-cpp/inspect.ts";

export type BackendName = "CUDA" | "Vulkan" | "Metal" | "CPU";

export interface LlamaBackendReport {
  /** The setting the backend was chosen for: the model doctor checks the loop with, else auto. */
  gpuSetting: GpuSetting;
  backend: BackendName;
  /** GPU backends `auto` loaded and gave up because their devices compute on the CPU. */
  refusedGpus: { backend: BackendName; devices: string[]; reason: string }[];
  /** An explicitly set GPU backend that runs on a software device. */
  softwareGpuWarning: string | undefined;
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
  /**
   * `auto`'s refusal as engine starts remember it (cache folder): doctor probes for real and
   * rewrites the record. `matched`: what the record said before, against what the probe found.
   */
  rememberedRefusal?: { path: string; matched: "same" | "different" | "none" };
}

/** `cacheDirectory`: where engine starts remember `auto`'s refusal (none with the cache off). */
export async function probeLlamaBackend(
  gpuSetting: GpuSetting = "auto",
  cacheDirectory?: string,
): Promise<LlamaBackendReport> {
  const nvidiaGpus = queryNvidiaGpus();
  const memory = gpuSetting === "auto" ? cacheDirectory : undefined;
  const before = memory === undefined ? undefined : await readRememberedRefusal(memory);
  const startedAt = performance.now();
  try {
    // The embedded engine's own backend for the GPU setting: what a model would load on, probed
    // for real even where a start would skip a remembered refusal.
    const { llama, refused, warning } = await getSharedLlamaBackend(
      gpuSetting,
      memory === undefined ? {} : { rememberIn: memory, probe: true },
    );
    const loadMs = Math.round(performance.now() - startedAt);
    const gpu = llama.gpu;
    const [devices, vram] =
      gpu === false
        ? [[], undefined]
        : await Promise.all([llama.getGpuDeviceNames(), llama.getVramState()]);
    const cudaLibraryPath = gpu === "cuda" ? await mappedLibrary("libggml-cuda") : undefined;
    return {
      gpuSetting,
      backend: gpu === false ? "CPU" : gpuBackendNames[gpu],
      refusedGpus: refused.map((refusal) => ({
        backend: gpuBackendNames[refusal.gpu],
        devices: refusal.devices,
        reason: refusal.reason,
      })),
      softwareGpuWarning: warning,
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
      ...(memory === undefined
        ? {}
        : {
            rememberedRefusal: {
              path: gpuRefusalPath(memory),
              matched: compareRefusals(before, refused),
            },
          }),
    };
  } catch (error) {
    return {
      gpuSetting,
      backend: "CPU",
      refusedGpus: [],
      softwareGpuWarning: undefined,
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

function compareRefusals(
  before: readonly { gpu: string; reason: string }[] | undefined,
  found: readonly { gpu: string; reason: string }[],
): "same" | "different" | "none" {
  if (before === undefined) return "none";
  const said = (list: readonly { gpu: string; reason: string }[]): string =>
    JSON.stringify(list.map(({ gpu, reason }) => [gpu, reason]));
  return said(before) === said(found) ? "same" : "different";
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
