// The backend a decode bench runs on, chosen on its command line the same way in every bench:
// `--gpu` (whatever GPU node-llama-cpp finds), `--backend cuda|vulkan` (that prebuilt package), or
// `--lavapipe` (Vulkan on Mesa's software device, shown to this process and the ones it starts:
// CI's stand-in for a GPU). None: the CPU backend.
import type { GpuSetting } from "../../src/engines/llama-cpp/llama-backend.ts";
import { findLavapipeIcd, lavapipeEnvironment } from "../../test/support/lavapipe.ts";

/** parseArgs options for the choice. */
export const benchBackendOptions = {
  gpu: { type: "boolean", default: false },
  /** A GPU backend by name (node-llama-cpp's prebuilt cuda or vulkan); implies --gpu. */
  backend: { type: "string" },
  lavapipe: { type: "boolean", default: false },
} as const;

/** The engine's gpu setting; with --lavapipe, the environment that shows lavapipe is set first. */
export function benchGpuSetting(values: {
  gpu?: boolean;
  backend?: string | undefined;
  lavapipe?: boolean;
}): GpuSetting {
  if (values.lavapipe === true) {
    const icd = findLavapipeIcd();
    if (icd === undefined)
      throw new Error("no lavapipe ICD (apt-get install -y mesa-vulkan-drivers)");
    // Before node-llama-cpp loads Vulkan: the loader reads these when the backend starts.
    Object.assign(process.env, lavapipeEnvironment(icd, true));
    return "vulkan";
  }
  if (values.backend !== undefined) return values.backend as GpuSetting;
  return values.gpu === true ? "auto" : false;
}
