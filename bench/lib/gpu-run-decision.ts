// Whether the GPU scenario may run: on the GPU, as a CPU stand-in (no GPU on this machine), or
// not at all, because the driver sees an NVIDIA GPU that node-llama-cpp's CUDA backend did not
// load, and a CPU figure would pass for the GPU's.
import type { NvidiaGpu } from "../../src/engines/llama-cpp/device/nvidia-gpus.ts";
import type { GpuInfo } from "./detect-gpu.ts";

export type GpuRunDecision =
  | { kind: "gpu"; description: string }
  | { kind: "cpu-stand-in"; description: string }
  | { kind: "backend-missing"; description: string; message: string };

export function decideGpuRun(nvidiaGpus: readonly NvidiaGpu[], backend: GpuInfo): GpuRunDecision {
  const seen = nvidiaGpus.map((gpu) => `${gpu.name} (compute ${gpu.computeCapability})`).join(", ");
  if (nvidiaGpus.length > 0 && backend.backend !== "cuda") {
    const loaded = backend.backend === false ? "the CPU backend" : `the ${backend.backend} backend`;
    return {
      kind: "backend-missing",
      description: `nvidia-smi sees ${seen}, but node-llama-cpp loaded ${loaded}`,
      message:
        `nvidia-smi sees ${seen}, but node-llama-cpp's CUDA backend did not load (it loaded ${loaded}), ` +
        "so this run would measure something other than the GPU. Run `npx spark doctor` to see why, " +
        "and build the CUDA backend for this card: `npx --no node-llama-cpp source build --gpu cuda` " +
        "(README: Building node-llama-cpp for your GPU).",
    };
  }
  if (backend.backend === false) return { kind: "cpu-stand-in", description: "no GPU found" };
  return { kind: "gpu", description: `${backend.backend}: ${backend.devices.join(", ")}` };
}
