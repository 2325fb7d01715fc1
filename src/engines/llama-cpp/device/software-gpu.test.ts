import { describe, expect, it } from "vitest";
import { isSoftwareGpuName, softwareGpuReason } from "./software-gpu.ts";

describe("software GPUs", () => {
  it("knows Mesa's and Google's software renderers by the names their drivers report", () => {
    for (const name of [
      "llvmpipe (LLVM 15.0.6, 256 bits)",
      "lavapipe",
      "SwiftShader Device (Subzero)",
      "Microsoft Basic Render Driver",
    ]) {
      expect(isSoftwareGpuName(name), name).toBe(true);
    }
    for (const name of [
      "NVIDIA H100 80GB HBM3",
      "AMD Radeon RX 7900 XTX (RADV NAVI31)",
      "Apple M2",
    ]) {
      expect(isSoftwareGpuName(name), name).toBe(false);
    }
  });

  it("refuses a backend with no device or only software ones, never one with a real device", () => {
    expect(softwareGpuReason("Vulkan", [])).toContain("the Vulkan backend found no GPU device");
    expect(softwareGpuReason("Vulkan", ["llvmpipe (LLVM 15.0.6, 256 bits)"])).toBe(
      "llvmpipe (LLVM 15.0.6, 256 bits) is a software device that runs on the CPU, slower than llama.cpp's CPU backend",
    );
    expect(
      softwareGpuReason("Vulkan", [
        "llvmpipe (LLVM 15.0.6, 256 bits)",
        "Intel(R) UHD Graphics 770",
      ]),
    ).toBeUndefined();
    expect(softwareGpuReason("CUDA", ["NVIDIA H100 80GB HBM3"])).toBeUndefined();
  });
});
