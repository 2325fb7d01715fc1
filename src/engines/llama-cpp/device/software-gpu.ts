// Tells a GPU backend that would compute on the CPU from a real GPU: Mesa's llvmpipe/lavapipe and
// Google's SwiftShader render in software, and ggml's Vulkan backend loads with no device at all
// where only such a CPU-type device exists. Either is slower than llama.cpp's own CPU backend
// (191.6 tokens/s against 976 on the tiny model, issue 23), so `gpu: auto` must not pick it.

/** Driver names of Vulkan/OpenGL devices that run on the CPU. */
const SOFTWARE_DEVICE_NAME = /\b(llvmpipe|lavapipe|softpipe|swiftshader)\b|microsoft basic render/i;

export function isSoftwareGpuName(name: string): boolean {
  return SOFTWARE_DEVICE_NAME.test(name);
}

/**
 * Why a loaded GPU backend is no GPU at all, or undefined when some device is real. `backend` is
 * the name shown to people ("Vulkan"), `devices` what node-llama-cpp's getGpuDeviceNames() lists.
 */
export function softwareGpuReason(backend: string, devices: readonly string[]): string | undefined {
  if (devices.length === 0) {
    return `the ${backend} backend found no GPU device (only a software or CPU-type device, which llama.cpp skips; VRAM 0 B)`;
  }
  if (devices.every(isSoftwareGpuName)) {
    return `${devices.join(", ")} ${devices.length === 1 ? "is a software device" : "are software devices"} that ${devices.length === 1 ? "runs" : "run"} on the CPU, slower than llama.cpp's CPU backend`;
  }
  return undefined;
}
