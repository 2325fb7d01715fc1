// What `spark doctor` warns about, from a report as a CUDA machine would produce it: the JIT of a
// CUDA library without machine code for the device, a GPU the CUDA backend did not load, and
// model problems carried into the findings.
import { describe, expect, it } from "vitest";
import { bubblewrapSandbox, noCommandSandbox } from "../../src/agent/sandbox/command-sandbox.ts";
import { findingsOf, type DoctorReport } from "../../src/cli/doctor/doctor-report.ts";
import { formatDoctorReport } from "../../src/cli/doctor/format-doctor-report.ts";
import type { LlamaBackendReport } from "../../src/cli/doctor/llama-backend-report.ts";

const h100 = {
  name: "NVIDIA H100 80GB HBM3",
  computeCapability: "9.0",
  memoryMiB: 81559,
  driverVersion: "570.124.06",
};

function report(llama: Partial<LlamaBackendReport>): Omit<DoctorReport, "findings"> {
  return {
    node: { version: "20.19.0", supported: true },
    nodeLlamaCpp: { version: "3.22.1" },
    llama: {
      gpuSetting: "auto",
      backend: "CUDA",
      refusedGpus: [],
      softwareGpuWarning: undefined,
      buildType: "prebuilt",
      llamaCppRelease: "b6000",
      cmakeOptions: {},
      devices: ["NVIDIA H100 80GB HBM3"],
      vram: { totalBytes: 80 * 1024 ** 3, freeBytes: 79 * 1024 ** 3 },
      cpuMathCores: 16,
      loadMs: 950,
      cudaLibrary: {
        path: "/x/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/libggml-cuda.so",
        architectures: { sass: [86, 89, 120, 121], ptx: [75, 80, 90] },
      },
      nvidiaGpus: [h100],
      error: undefined,
      ...llama,
    },
    decodeLoop: {
      loop: "native",
      requested: "native",
      addonPath: "/x/spark_generation_loop.node",
      llamaLibrary: "/x/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/libllama.cuda.v0.5.0.so",
      devices: ["CUDA0 (NVIDIA H100 80GB HBM3)", "CPU"],
      opened: { model: "local", gpuLayers: 25, sampling: "device" },
      notOpened: undefined,
      reason: undefined,
    },
    threads: { cpuDefault: 15, availableParallelism: 16 },
    configSources: [],
    models: [],
    commandSandbox: bubblewrapSandbox("/usr/bin/bwrap"),
  };
}

describe("doctor findings", () => {
  it("warns that the prebuilt CUDA library is JIT-compiled on an H100, and how to build for it", () => {
    const findings = findingsOf(report({}));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.status).toBe("warning");
    expect(findings[0]?.message).toContain("no machine code for sm_90, only PTX for compute_90");
    expect(findings[0]?.message).toContain(
      "CMAKE_CUDA_ARCHITECTURES=90 npx --no node-llama-cpp source build --gpu cuda",
    );
    const text = formatDoctorReport({ ...report({}), findings });
    expect(text).toMatch(/^backend: CUDA on NVIDIA H100 80GB HBM3, VRAM .+ \(loaded in 950 ms\)$/m);
    expect(text).toContain(
      "machine code (SASS) for sm_86, sm_89, sm_120, sm_121; PTX for compute_75, compute_80, compute_90",
    );
  });

  it("has nothing to say when the library carries machine code for the card", () => {
    const built = report({
      buildType: "localBuild",
      cmakeOptions: { CMAKE_CUDA_ARCHITECTURES: "90" },
      cudaLibrary: {
        path: "/x/localBuilds/linux-x64-cuda/Release/libggml-cuda.so",
        architectures: { sass: [90], ptx: [] },
      },
    });
    expect(findingsOf(built)).toEqual([]);
    expect(formatDoctorReport({ ...built, findings: [] })).toContain(
      "built with CMAKE_CUDA_ARCHITECTURES=90",
    );
  });

  it("warns when nvidia-smi sees a GPU but the CPU backend loaded", () => {
    const findings = findingsOf(report({ backend: "CPU", devices: [], cudaLibrary: undefined }));
    expect(findings.map((finding) => finding.status)).toEqual(["warning"]);
    expect(findings[0]?.message).toContain("loaded the CPU backend");
  });

  it("turns an unsupported Node and a failing model into errors", () => {
    const findings = findingsOf({
      ...report({ nvidiaGpus: [], cudaLibrary: undefined, backend: "CPU", devices: [] }),
      node: { version: "18.20.0", supported: false },
      models: [
        {
          name: "gone",
          engine: "llama-cpp",
          isDefault: true,
          target: "/m.gguf",
          status: "error",
          detail: "Model file not found: /m.gguf.",
        },
      ],
    });
    expect(findings.map((finding) => finding.status)).toEqual(["error", "error"]);
    expect(findings[1]?.message).toBe("model gone: Model file not found: /m.gguf.");
  });

  it("warns when decoding falls back to node-llama-cpp's loop, unless the user asked for it", () => {
    const cpu = report({ nvidiaGpus: [], cudaLibrary: undefined, backend: "CPU", devices: [] });
    const missing = {
      loop: "node-llama-cpp" as const,
      requested: "native" as const,
      addonPath: undefined,
      llamaLibrary: undefined,
      devices: [],
      opened: undefined,
      notOpened: undefined,
      reason: "the native generation loop is not built",
    };
    const findings = findingsOf({ ...cpu, decodeLoop: missing });
    expect(findings.map((finding) => finding.status)).toEqual(["warning"]);
    expect(findings[0]?.message).toContain("is not built");
    expect(findings[0]?.message).toContain("npm run build:native");
    expect(formatDoctorReport({ ...cpu, decodeLoop: missing, findings })).toContain(
      "decode loop: node-llama-cpp (the native generation loop is not built)",
    );
    const asked = {
      ...missing,
      requested: "node-llama-cpp" as const,
      reason: "node-llama-cpp's loop was requested",
    };
    expect(findingsOf({ ...cpu, decodeLoop: asked })).toEqual([]);
    const invalid = { ...missing, requested: undefined, reason: 'SPARK_DECODE_LOOP is "fast"' };
    expect(findingsOf({ ...cpu, decodeLoop: invalid }).map((finding) => finding.status)).toEqual([
      "error",
    ]);
  });

  it("names what the native loop calls and the model it was opened on; a fallback after opening is a warning without a rebuild hint", () => {
    const cuda = report({});
    const text = formatDoctorReport({ ...cuda, findings: [] });
    expect(text).toContain(
      "decode loop: native (/x/spark_generation_loop.node)\n" +
        "  calls /x/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda/libllama.cuda.v0.5.0.so: CUDA0 (NVIDIA H100 80GB HBM3), CPU\n" +
        "  opened on model local as the engine opens it (25 layers on a GPU)\n" +
        "  samples on the device (llama.cpp's backend; the logits stay where they were computed)\n",
    );
    const fellBack = {
      ...cuda.decodeLoop,
      loop: "node-llama-cpp" as const,
      reason: "The native generation loop could not load /m.gguf: out of memory",
    };
    const findings = findingsOf({ ...cuda, decodeLoop: fellBack }).filter((finding) =>
      finding.message.includes("node-llama-cpp's loop"),
    );
    expect(findings).toEqual([
      {
        status: "warning",
        message:
          "the embedded engine decodes on node-llama-cpp's loop, which costs more per token: The native generation loop could not load /m.gguf: out of memory.",
      },
    ]);
  });

  it("shows a GPU backend that auto refused for its software device, which is no problem, and warns when one was asked for", () => {
    const refused = report({
      backend: "CPU",
      devices: [],
      vram: undefined,
      cudaLibrary: undefined,
      nvidiaGpus: [],
      refusedGpus: [
        {
          backend: "Vulkan",
          devices: ["llvmpipe (LLVM 15.0.6, 256 bits)"],
          reason: "llvmpipe (LLVM 15.0.6, 256 bits) is a software device that runs on the CPU",
        },
      ],
    });
    expect(findingsOf(refused)).toEqual([]);
    const text = formatDoctorReport({ ...refused, findings: [] });
    expect(text).toContain(
      '\n  refused Vulkan (gpu = "auto"): llvmpipe (LLVM 15.0.6, 256 bits) is a software device that runs on the CPU; using the CPU backend\n',
    );
    expect(text).toContain("  no GPU in use: only software devices found (refused above)\n");
    const warning = 'gpu = "vulkan" runs on no real GPU: llvmpipe is a software device';
    const forced = report({
      gpuSetting: "vulkan",
      backend: "Vulkan",
      devices: ["llvmpipe (LLVM 15.0.6, 256 bits)"],
      cudaLibrary: undefined,
      nvidiaGpus: [],
      softwareGpuWarning: warning,
    });
    expect(findingsOf(forced)).toEqual([{ status: "warning", message: warning }]);
  });

  it("says what the agent's commands run inside, and warns when it is nothing", () => {
    const cpu = report({ nvidiaGpus: [], cudaLibrary: undefined, backend: "CPU", devices: [] });
    expect(findingsOf(cpu)).toEqual([]);
    expect(formatDoctorReport({ ...cpu, findings: [] })).toContain(
      "command sandbox: bubblewrap (writes: workspace only, network: off)\n",
    );
    const unsandboxed = {
      ...cpu,
      commandSandbox: noCommandSandbox("bwrap is not on PATH (install the bubblewrap package)"),
    };
    const findings = findingsOf(unsandboxed);
    expect(findings).toEqual([
      {
        status: "warning",
        message:
          "command sandbox: none — bwrap is not on PATH (install the bubblewrap package); commands outside the read-only list always ask",
      },
    ]);
    expect(formatDoctorReport({ ...unsandboxed, findings })).toContain(
      "warning: command sandbox: none — bwrap is not on PATH",
    );
  });
});
