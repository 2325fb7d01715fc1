import { describe, expect, it } from "vitest";
import { deviceSamplingEnabled } from "./device-sampling-mode.ts";

describe("deviceSamplingEnabled", () => {
  it('"auto" samples on the device on CUDA and Metal only; "on" and "off" everywhere', () => {
    const backends = [false, "cuda", "vulkan", "metal"] as const;
    expect(backends.map((gpu) => deviceSamplingEnabled("auto", gpu))).toEqual([
      false,
      true,
      false,
      true,
    ]);
    expect(backends.every((gpu) => deviceSamplingEnabled("on", gpu))).toBe(true);
    expect(backends.some((gpu) => deviceSamplingEnabled("off", gpu))).toBe(false);
  });
});
