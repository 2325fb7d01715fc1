// Whether a CUDA library runs on a device as shipped, after the driver JIT-compiles its PTX at
// first load, or not at all: the rule `spark doctor` warns by.
import type { CudaArchitectures } from "./cuda-fatbin.ts";

export type CudaCodeForDevice =
  | { kind: "sass"; architecture: number }
  | { kind: "ptx-jit"; architecture: number }
  | { kind: "none" };

/** "9.0" → 90; "12.1" → 121. */
export function smNumber(computeCapability: string): number {
  const [major = "0", minor = "0"] = computeCapability.split(".");
  return Number(major) * 10 + Number(minor);
}

/**
 * SASS runs on devices of the same major version and an equal or newer minor one (sm_86 code on
 * an 8.9 card); PTX is compiled by the driver for any newer device, at first load. Prefers the
 * newest that fits.
 */
export function cudaCodeForDevice(
  architectures: CudaArchitectures,
  computeCapability: string,
): CudaCodeForDevice {
  const device = smNumber(computeCapability);
  const major = Math.floor(device / 10);
  const sass = architectures.sass.filter(
    (architecture) => Math.floor(architecture / 10) === major && architecture <= device,
  );
  if (sass.length > 0) return { kind: "sass", architecture: Math.max(...sass) };
  const ptx = architectures.ptx.filter((architecture) => architecture <= device);
  if (ptx.length > 0) return { kind: "ptx-jit", architecture: Math.max(...ptx) };
  return { kind: "none" };
}
