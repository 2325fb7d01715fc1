// The GPU scenario's decision: a GPU the driver sees but node-llama-cpp's CUDA backend did not
// load fails the run (a CPU figure must never stand in for it); nvidia-smi's CSV parsed.
import { describe, expect, it } from "vitest";
import { decideGpuRun } from "../../bench/lib/gpu-run-decision.ts";
import {
  parseNvidiaSmiGpus,
  type NvidiaGpu,
} from "../../src/engines/llama-cpp/device/nvidia-gpus.ts";

const h100: NvidiaGpu = {
  name: "NVIDIA H100 80GB HBM3",
  computeCapability: "9.0",
  memoryMiB: 81559,
  driverVersion: "570.124.06",
};

describe("decideGpuRun", () => {
  it("fails when nvidia-smi sees a GPU and node-llama-cpp loaded the CPU backend", () => {
    const decision = decideGpuRun([h100], { backend: false, devices: [] });
    expect(decision.kind).toBe("backend-missing");
    expect(decision.description).toContain("NVIDIA H100 80GB HBM3 (compute 9.0)");
    expect(decision.kind === "backend-missing" && decision.message).toMatch(
      /CUDA backend did not load \(it loaded the CPU backend\).*spark doctor.*source build --gpu cuda/,
    );
  });

  it("fails when an NVIDIA GPU is driven by another backend than CUDA", () => {
    const decision = decideGpuRun([h100], { backend: "vulkan", devices: ["NVIDIA H100"] });
    expect(decision.kind).toBe("backend-missing");
    expect(decision.description).toContain("loaded the vulkan backend");
  });

  it("runs on the GPU when the CUDA backend loaded", () => {
    expect(decideGpuRun([h100], { backend: "cuda", devices: ["NVIDIA H100 80GB HBM3"] })).toEqual({
      kind: "gpu",
      description: "cuda: NVIDIA H100 80GB HBM3",
    });
  });

  it("runs a CPU stand-in only where no GPU is present at all", () => {
    expect(decideGpuRun([], { backend: false, devices: [] })).toEqual({
      kind: "cpu-stand-in",
      description: "no GPU found",
    });
  });

  it("runs on Metal or Vulkan where the driver shows no NVIDIA GPU", () => {
    expect(decideGpuRun([], { backend: "metal", devices: ["Apple M3"] }).kind).toBe("gpu");
  });
});

describe("parseNvidiaSmiGpus", () => {
  it("reads name, compute capability, memory and driver, a name with commas included", () => {
    const csv =
      "NVIDIA H100 80GB HBM3, 9.0, 81559, 570.124.06\n" +
      "NVIDIA RTX A6000, Ada, 8.6, 49140, 550.54\n\n";
    expect(parseNvidiaSmiGpus(csv)).toEqual([
      h100,
      {
        name: "NVIDIA RTX A6000, Ada",
        computeCapability: "8.6",
        memoryMiB: 49140,
        driverVersion: "550.54",
      },
    ]);
  });

  it("ignores error text and rows without a compute capability", () => {
    expect(parseNvidiaSmiGpus("NVIDIA-SMI has failed because it couldn't communicate")).toEqual([]);
    expect(parseNvidiaSmiGpus("Tesla K80, [N/A], 11441, 470.1")).toEqual([]);
  });
});
