// Whether the native loop may sample on llama.cpp's backend (the device computing the logits)
// instead of the host: the engine option, else SPARK_DEVICE_SAMPLING, else "auto".
import type { SamplingPlace } from "../../engine.ts";
import { SparkError } from "../../../protocol/spark-error.ts";
import type { Sampler } from "./generation-loop-addon.ts";

export const DEVICE_SAMPLING_MODES = ["auto", "on", "off"] as const;
/**
 * "on": a job without a grammar or prompt lookup samples on the backend when it runs the whole
 * chain (greedy, or top-k → top-p → temperature → seeded dist); "off": every job on the host;
 * "auto": "on" on CUDA and Metal, where the logits stay on the GPU; not on the CPU backend, where
 * they are in host memory already and the backend chain measured 0.77–0.94× host sampling
 * (bench/llama-token-overhead.ts), nor on Vulkan, where changing a sequence's backend sampler
 * between jobs corrupted the heap (lavapipe, the llama.cpp of node-llama-cpp 3.22.1; docs/gpu.md).
 */
export type DeviceSamplingMode = (typeof DEVICE_SAMPLING_MODES)[number];

export function requestedDeviceSampling(
  option: DeviceSamplingMode | undefined,
): DeviceSamplingMode {
  if (option !== undefined) return option;
  const fromEnvironment = process.env.SPARK_DEVICE_SAMPLING;
  if (fromEnvironment === undefined || fromEnvironment === "") return "auto";
  if ((DEVICE_SAMPLING_MODES as readonly string[]).includes(fromEnvironment)) {
    return fromEnvironment as DeviceSamplingMode;
  }
  throw new SparkError(
    "invalid_config",
    `SPARK_DEVICE_SAMPLING is "${fromEnvironment}"; use "auto", "on" or "off".`,
  );
}

/** A stream's Timings.sampling from where its jobs sampled (none: it sampled nothing). */
export function samplingPlace(samplers: readonly Sampler[]): SamplingPlace | undefined {
  const device = samplers.includes("device");
  const host = samplers.includes("host");
  if (device && host) return "device+host";
  if (device) return "device";
  return host ? "host" : undefined;
}

/** Whether the native context samples on the device, for the backend node-llama-cpp loaded. */
export function deviceSamplingEnabled(
  mode: DeviceSamplingMode,
  gpu: false | "cuda" | "vulkan" | "metal",
): boolean {
  return mode === "on" || (mode === "auto" && (gpu === "cuda" || gpu === "metal"));
}
