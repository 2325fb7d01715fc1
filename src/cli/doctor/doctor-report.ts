// `spark doctor`'s findings in one object (what --json prints): runtime versions, the llama.cpp
// backend and devices in use, threads, configured models, and the warnings drawn from them.
import { availableParallelism } from "node:os";
import type { McpServerStatus } from "../../agent/mcp/mcp-server-connection.ts";
import type { CommandSandbox } from "../../agent/sandbox/command-sandbox.ts";
import type { LoadedConfig } from "../../config/config-types.ts";
import { cudaCodeForDevice, smNumber } from "../../engines/llama-cpp/inspect.ts";
import { defaultCpuThreads, nodeLlamaCppVersion } from "../../engines/llama-cpp/inspect.ts";
import { buildCommandViewReport, type CommandViewReport } from "./command-view-report.ts";
import type { DecodeLoopReport } from "./decode-loop-report.ts";
import type { LlamaBackendReport } from "./llama-backend-report.ts";
import { prefixCacheReport, type PrefixCacheReport } from "./prefix-cache-report.ts";
import {
  checkModel,
  type CheckStatus,
  type ModelCheck,
  type ModelCheckOptions,
} from "./model-checks.ts";

/** package.json's `engines.node`. */
const MINIMUM_NODE = [20, 19] as const;

export interface Finding {
  status: Exclude<CheckStatus, "ok" | "skipped">;
  message: string;
}

export interface DoctorReport {
  node: { version: string; supported: boolean };
  nodeLlamaCpp: { version: string | undefined };
  llama: LlamaBackendReport;
  decodeLoop: DecodeLoopReport;
  threads: {
    /** What the embedded engine uses on the CPU when a model sets no `threads`. */
    cpuDefault: number;
    availableParallelism: number;
  };
  configSources: string[];
  models: ModelCheck[];
  /** The embedded engine's prefix cache on disk: size, entries, hit rate. */
  prefixCache?: PrefixCacheReport;
  /** What the agent's run_command children run inside. */
  commandSandbox: Pick<CommandSandbox, "kind" | "description">;
  /** What a command run in the current folder sees (with a sandbox). */
  commandView?: CommandViewReport;
  /** Each configured MCP server, started once (spark doctor adds it). */
  mcpServers?: McpServerStatus[];
  findings: Finding[];
}

export async function buildDoctorReport(
  config: LoadedConfig,
  llama: LlamaBackendReport,
  decodeLoop: DecodeLoopReport,
  commandSandbox: CommandSandbox,
  options: ModelCheckOptions,
): Promise<DoctorReport> {
  const defaultName = config.defaultModel;
  const models = await Promise.all(
    Object.entries(config.models).map(([name, model]) =>
      checkModel(name, model, name === defaultName, options),
    ),
  );
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const node = {
    version: process.versions.node,
    supported: major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]),
  };
  const report: DoctorReport = {
    node,
    nodeLlamaCpp: { version: await nodeLlamaCppVersion() },
    llama,
    decodeLoop,
    threads: { cpuDefault: defaultCpuThreads(), availableParallelism: availableParallelism() },
    configSources: config.sources,
    models,
    prefixCache: await prefixCacheReport(config),
    commandSandbox: { kind: commandSandbox.kind, description: commandSandbox.description },
    findings: [],
  };
  const commandView = buildCommandViewReport(commandSandbox, config.sparkHome);
  if (commandView !== undefined) report.commandView = commandView;
  report.findings = findingsOf(report);
  return report;
}

export function findingsOf(report: Omit<DoctorReport, "findings">): Finding[] {
  const findings: Finding[] = [];
  if (!report.node.supported) {
    findings.push({
      status: "error",
      message: `Node ${report.node.version} is older than Spark needs (${MINIMUM_NODE.join(".")} or newer).`,
    });
  }
  const { llama } = report;
  if (llama.error !== undefined) {
    findings.push({ status: "error", message: `node-llama-cpp could not start: ${llama.error}` });
  }
  const { decodeLoop } = report;
  if (decodeLoop.requested === undefined) {
    findings.push({
      status: "error",
      message: decodeLoop.reason ?? "SPARK_DECODE_LOOP is invalid",
    });
  } else if (decodeLoop.requested === "native" && decodeLoop.loop !== "native") {
    // Rebuilding helps only where the addon itself is missing or does not load.
    const hint =
      decodeLoop.addonPath === undefined && /not built|did not load/.test(decodeLoop.reason ?? "")
        ? " `npm run build:native` builds Spark's native loop and says what failed."
        : "";
    findings.push({
      status: "warning",
      message: `the embedded engine decodes on node-llama-cpp's loop, which costs more per token: ${decodeLoop.reason ?? "unknown"}.${hint}`,
    });
  }
  if (llama.softwareGpuWarning !== undefined) {
    findings.push({ status: "warning", message: llama.softwareGpuWarning });
  }
  const gpus = llama.nvidiaGpus;
  if (gpus.length > 0 && llama.backend !== "CUDA" && llama.error === undefined) {
    findings.push({
      status: "warning",
      message:
        `nvidia-smi sees ${gpus.map((gpu) => gpu.name).join(", ")}, but node-llama-cpp loaded the ${llama.backend} backend: ` +
        "the embedded engine will not use the GPU. Build the CUDA backend for this card: " +
        "`npx --no node-llama-cpp source build --gpu cuda` (README: Building node-llama-cpp for your GPU).",
    });
  }
  const architectures = llama.cudaLibrary?.architectures;
  if (llama.backend === "CUDA" && architectures !== undefined) {
    for (const gpu of gpus) {
      const code = cudaCodeForDevice(architectures, gpu.computeCapability);
      const sm = smNumber(gpu.computeCapability);
      if (code.kind === "ptx-jit") {
        findings.push({
          status: "warning",
          message:
            `${gpu.name} (compute ${gpu.computeCapability}): the CUDA library has no machine code for sm_${sm}, only PTX for compute_${code.architecture}; ` +
            "the driver compiles it when the backend first loads (slow once, then cached in ~/.nv/ComputeCache if that cache is large enough). " +
            `Build for this card to skip it: CMAKE_CUDA_ARCHITECTURES=${sm} npx --no node-llama-cpp source build --gpu cuda.`,
        });
      } else if (code.kind === "none") {
        findings.push({
          status: "error",
          message: `${gpu.name} (compute ${gpu.computeCapability}): the CUDA library carries no code this device can run; build it with CMAKE_CUDA_ARCHITECTURES=${sm}.`,
        });
      }
    }
  }
  if (report.commandSandbox.kind === "none") {
    findings.push({
      status: "warning",
      message: `command sandbox: ${report.commandSandbox.description}`,
    });
  }
  for (const model of report.models) {
    if (model.status === "error" || model.status === "warning") {
      findings.push({ status: model.status, message: `model ${model.name}: ${model.detail}` });
    }
  }
  return findings;
}
