// `spark doctor`'s checks: the llama.cpp backend, the decode loop, the sandbox, every configured
// model and MCP server, printed as a report. commands/doctor-command.ts loads it lazily.
import { probeMcpServers } from "../../agent/mcp/probe-mcp-servers.ts";
import { resolveCommandSandbox } from "../../agent/sandbox/resolve-command-sandbox.ts";
import { cacheSettings } from "../../config/cache-settings.ts";
import type { LoadedConfig } from "../../config/config-types.ts";
import { loadConfig } from "../../config/load-config.ts";
import { buildDoctorReport } from "../doctor/doctor-report.ts";
import { formatDoctorReport } from "../doctor/format-doctor-report.ts";
import { probeDecodeLoop, type DecodeLoopTarget } from "../doctor/decode-loop-report.ts";
import { probeLlamaBackend } from "../doctor/llama-backend-report.ts";
import { mcpServerFindings } from "../doctor/mcp-servers-report.ts";

export interface DoctorFlags {
  json?: boolean;
  offline?: boolean;
  timeout: string;
}

export async function runDoctor(flags: DoctorFlags): Promise<void> {
  const config = await loadConfig({ cwd: process.cwd(), env: process.env, flags: {} });
  // The backend first, for the model the loop is checked with: the native loop binds to it.
  const target = decodeLoopTarget(config);
  const cache = cacheSettings(config);
  const llama = await probeLlamaBackend(
    target?.model.gpu ?? "auto",
    cache.enabled ? cache.directory : undefined,
  );
  const decodeLoop = await probeDecodeLoop(target);
  const commandSandbox = await resolveCommandSandbox(config.sandbox);
  const report = await buildDoctorReport(config, llama, decodeLoop, commandSandbox, {
    offline: flags.offline === true,
    timeoutMs: Math.max(1, Number(flags.timeout) || 3000),
  });
  const mcpConfigs = Object.values(config.mcpServers ?? {});
  if (mcpConfigs.length > 0) {
    report.mcpServers = await probeMcpServers(mcpConfigs);
    report.findings.push(...mcpServerFindings(report.mcpServers));
  }
  process.stdout.write(
    flags.json === true ? JSON.stringify(report, null, 2) + "\n" : formatDoctorReport(report),
  );
  if (report.findings.some((finding) => finding.status === "error")) process.exitCode = 1;
}

/** The model the decode loop is checked with: the default one when it is embedded, else the first. */
function decodeLoopTarget(config: LoadedConfig): DecodeLoopTarget | undefined {
  const embedded = Object.entries(config.models).flatMap(([name, model]) =>
    model.engine === "llama-cpp" ? [{ name, model }] : [],
  );
  return embedded.find(({ name }) => name === config.defaultModel) ?? embedded[0];
}
