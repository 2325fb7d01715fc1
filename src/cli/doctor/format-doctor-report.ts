// `spark doctor`'s report for people: one section per concern, problems last with what to do.
import { formatBytes } from "../../models/render-progress-bar.ts";
import type { DoctorReport } from "./doctor-report.ts";

const statusMarks = { ok: "ok", warning: "WARN", error: "FAIL", skipped: "skip" } as const;

export function formatDoctorReport(report: DoctorReport): string {
  const { llama } = report;
  const lines = [
    `Node ${report.node.version}${report.node.supported ? "" : " (unsupported)"}`,
    `node-llama-cpp ${report.nodeLlamaCpp.version ?? "not found"}${llama.llamaCppRelease === undefined ? "" : ` (llama.cpp ${llama.llamaCppRelease}, ${llama.buildType === "localBuild" ? "local build" : "prebuilt binaries"})`}`,
    `backend: ${llama.backend}${llama.devices.length === 0 ? "" : ` on ${llama.devices.join(", ")}`}${llama.vram === undefined || llama.backend === "CPU" ? "" : `, VRAM ${formatBytes(llama.vram.freeBytes)} free of ${formatBytes(llama.vram.totalBytes)}`}${llama.loadMs === undefined ? "" : ` (loaded in ${llama.loadMs} ms)`}`,
  ];
  if (llama.backend === "CPU") {
    lines.push(
      llama.nvidiaGpus.length === 0
        ? "  no GPU in use: none found (nvidia-smi lists none; no Vulkan or Metal device)"
        : "  no GPU in use, although nvidia-smi lists one (see the warnings)",
    );
  }
  for (const gpu of llama.nvidiaGpus) {
    lines.push(
      `  nvidia-smi: ${gpu.name}, compute capability ${gpu.computeCapability}, ${gpu.memoryMiB} MiB, driver ${gpu.driverVersion}`,
    );
  }
  if (llama.cudaLibrary !== undefined) {
    const architectures = llama.cudaLibrary.architectures;
    lines.push(`  CUDA library: ${llama.cudaLibrary.path}`);
    lines.push(
      architectures === undefined
        ? "    (its architectures could not be read)"
        : `    machine code (SASS) for ${architectures.sass.map((sm) => `sm_${sm}`).join(", ") || "none"}; PTX for ${architectures.ptx.map((sm) => `compute_${sm}`).join(", ") || "none"}`,
    );
  }
  const cudaArchitectures = llama.cmakeOptions.CMAKE_CUDA_ARCHITECTURES;
  if (cudaArchitectures !== undefined)
    lines.push(`  built with CMAKE_CUDA_ARCHITECTURES=${cudaArchitectures}`);
  lines.push(
    `threads: ${report.threads.cpuDefault} by default on the CPU (${report.threads.availableParallelism} cores, one left to Node; a model's \`threads\` overrides it)`,
  );
  lines.push(
    "",
    report.configSources.length === 0
      ? "config: no config file"
      : `config: ${report.configSources.join(", ")}`,
  );
  if (report.models.length === 0) lines.push("models: none configured (see README: Configuration)");
  else lines.push("models:");
  for (const model of report.models) {
    lines.push(
      `  ${statusMarks[model.status].padEnd(4)} ${model.isDefault ? "*" : " "}${model.name} (${model.engine}): ${model.detail}`,
    );
  }
  lines.push("");
  if (report.findings.length === 0) lines.push("No problems found.");
  for (const finding of report.findings) {
    lines.push(`${finding.status === "error" ? "error" : "warning"}: ${finding.message}`);
  }
  return lines.join("\n") + "\n";
}
