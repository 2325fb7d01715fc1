// `spark doctor`'s report for people: runtime, backend and devices, threads, models, then the
// problems with what to do about them.
import type { SamplingPlace } from "../../engines/engine.ts";
import { formatBytes } from "../../models/render-progress-bar.ts";
import { formatCommandView } from "./command-view-report.ts";
import type { DecodeLoopReport } from "./decode-loop-report.ts";
import type { DoctorReport } from "./doctor-report.ts";
import type { LlamaBackendReport } from "./llama-backend-report.ts";
import { formatMcpServers } from "./mcp-servers-report.ts";
import { formatPrefixCache } from "./prefix-cache-report.ts";

const statusMarks = { ok: "ok", warning: "WARN", error: "FAIL", skipped: "skip" } as const;

export function formatDoctorReport(report: DoctorReport): string {
  const lines = [
    `Node ${report.node.version}${report.node.supported ? "" : " (unsupported)"}`,
    nodeLlamaCppLine(report),
    ...backendLines(report.llama),
    ...decodeLoopLines(report.decodeLoop),
    `threads: ${report.threads.cpuDefault} by default on the CPU (${report.threads.availableParallelism} cores, one left to Node; a model's \`threads\` overrides it)`,
    `command sandbox: ${report.commandSandbox.description}`,
    ...(report.commandView === undefined ? [] : formatCommandView(report.commandView)),
    "",
    report.configSources.length === 0
      ? "config: no config file"
      : `config: ${report.configSources.join(", ")}`,
    report.models.length === 0 ? "models: none configured (see README: Configuration)" : "models:",
    ...report.models.map(
      (model) =>
        `  ${statusMarks[model.status].padEnd(4)} ${model.isDefault ? "*" : " "}${model.name} (${model.engine}): ${model.detail}`,
    ),
    ...formatMcpServers(report.mcpServers),
    ...(report.prefixCache === undefined ? [] : formatPrefixCache(report.prefixCache)),
    "",
  ];
  if (report.findings.length === 0) lines.push("No problems found.");
  for (const finding of report.findings) {
    lines.push(`${finding.status === "error" ? "error" : "warning"}: ${finding.message}`);
  }
  return lines.join("\n") + "\n";
}

function nodeLlamaCppLine(report: DoctorReport): string {
  const { llama } = report;
  const build = llama.buildType === "localBuild" ? "local build" : "prebuilt binaries";
  const release =
    llama.llamaCppRelease === undefined ? "" : ` (llama.cpp ${llama.llamaCppRelease}, ${build})`;
  return `node-llama-cpp ${report.nodeLlamaCpp.version ?? "not found"}${release}`;
}

function backendLines(llama: LlamaBackendReport): string[] {
  const devices = llama.devices.length === 0 ? "" : ` on ${llama.devices.join(", ")}`;
  const vram =
    llama.vram === undefined || llama.backend === "CPU"
      ? ""
      : `, VRAM ${formatBytes(llama.vram.freeBytes)} free of ${formatBytes(llama.vram.totalBytes)}`;
  const load = llama.loadMs === undefined ? "" : ` (loaded in ${llama.loadMs} ms)`;
  const lines = [`backend: ${llama.backend}${devices}${vram}${load}`];
  for (const refused of llama.refusedGpus) {
    const instead = llama.backend === "CPU" ? "the CPU backend" : llama.backend;
    lines.push(`  refused ${refused.backend} (gpu = "auto"): ${refused.reason}; using ${instead}`);
  }
  const memory = llama.rememberedRefusal;
  if (memory !== undefined && (llama.refusedGpus.length > 0 || memory.matched !== "none")) {
    const was =
      memory.matched === "different" ? "; the refusal remembered before no longer held" : "";
    lines.push(
      llama.refusedGpus.length > 0
        ? `  remembered in ${memory.path}: later starts skip the refused backend${was}`
        : `  forgot the refusal remembered in ${memory.path}: it no longer held`,
    );
  }
  if (llama.backend === "CPU") {
    lines.push(
      llama.nvidiaGpus.length > 0
        ? "  no GPU in use, although nvidia-smi lists one (see the warnings)"
        : llama.refusedGpus.length > 0
          ? "  no GPU in use: only software devices found (refused above)"
          : "  no GPU in use: none found (nvidia-smi lists none; no Vulkan or Metal device)",
    );
  }
  for (const gpu of llama.nvidiaGpus) {
    lines.push(
      `  nvidia-smi: ${gpu.name}, compute capability ${gpu.computeCapability}, ${gpu.memoryMiB} MiB, driver ${gpu.driverVersion}`,
    );
  }
  if (llama.cudaLibrary !== undefined) {
    const architectures = llama.cudaLibrary.architectures;
    const list = (values: number[], prefix: string) =>
      values.map((value) => `${prefix}${value}`).join(", ") || "none";
    lines.push(
      `  CUDA library: ${llama.cudaLibrary.path}`,
      architectures === undefined
        ? "    (its architectures could not be read)"
        : `    machine code (SASS) for ${list(architectures.sass, "sm_")}; PTX for ${list(architectures.ptx, "compute_")}`,
    );
  }
  const cudaArchitectures = llama.cmakeOptions.CMAKE_CUDA_ARCHITECTURES;
  if (cudaArchitectures !== undefined) {
    lines.push(`  built with CMAKE_CUDA_ARCHITECTURES=${cudaArchitectures}`);
  }
  return lines;
}

/** The loop that will run, what it calls and the model it was opened with, or why not native. */
function decodeLoopLines(decodeLoop: DecodeLoopReport): string[] {
  if (decodeLoop.loop !== "native") {
    return [
      `decode loop: node-llama-cpp (${decodeLoop.reason ?? ""})`,
      ...openedModelLines(decodeLoop),
    ];
  }
  const lines = [`decode loop: native (${decodeLoop.addonPath ?? ""})`];
  if (decodeLoop.llamaLibrary !== undefined) {
    lines.push(`  calls ${decodeLoop.llamaLibrary}: ${decodeLoop.devices.join(", ")}`);
  }
  if (decodeLoop.opened !== undefined) {
    const { model, gpuLayers, sampling } = decodeLoop.opened;
    lines.push(
      `  opened on model ${model} as the engine opens it (${gpuLayers === 0 ? "no layers" : `${gpuLayers} layers`} on a GPU)`,
    );
    if (sampling !== undefined) lines.push(`  ${samplingLine(sampling)}`);
    lines.push(...openedModelLines(decodeLoop));
  } else if (decodeLoop.notOpened !== undefined) {
    lines.push(`  not opened on a model: ${decodeLoop.notOpened}`);
  }
  return lines;
}

/** The context the model gets and a chat template that cannot run as the engine would. */
function openedModelLines(decodeLoop: DecodeLoopReport): string[] {
  const opened = decodeLoop.opened;
  if (opened === undefined) return [];
  const lines: string[] = [];
  if (opened.context !== undefined) lines.push(`  context: ${opened.context}`);
  if (opened.chatFormatNotice !== undefined)
    lines.push(`  chat format: ${opened.chatFormatNotice}`);
  return lines;
}

function samplingLine(sampling: SamplingPlace): string {
  return sampling === "host"
    ? 'samples on the host (device_sampling = "off", or llama.cpp\'s backend does not run the chain)'
    : "samples on the device (llama.cpp's backend; the logits stay where they were computed)";
}
