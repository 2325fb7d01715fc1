// The sandbox a session's commands get, from `[sandbox]` and the command line: bubblewrap where it
// works unless the user turned it off, with the network only when they allowed it.
import type { SandboxConfig } from "../../config/config-types.ts";
import { bubblewrapSandbox, noCommandSandbox, type CommandSandbox } from "./command-sandbox.ts";
import { detectCommandSandbox } from "./detect-command-sandbox.ts";

export const DEFAULT_SANDBOX_CONFIG: SandboxConfig = { mode: "auto", network: false, env: [] };

export interface SandboxOverrides {
  /** `spark exec --allow-network`: on for this run whatever the config says. */
  allowNetwork?: boolean;
}

export async function resolveCommandSandbox(
  config: SandboxConfig = DEFAULT_SANDBOX_CONFIG,
  overrides: SandboxOverrides = {},
): Promise<CommandSandbox> {
  const settings = {
    network: config.network || overrides.allowNetwork === true,
    passEnvironment: config.env,
  };
  if (config.mode === "off") {
    return noCommandSandbox('turned off by [sandbox] mode = "off" in the config', settings);
  }
  const detection = await detectCommandSandbox();
  return detection.kind === "bubblewrap"
    ? bubblewrapSandbox(detection.bubblewrapPath, settings)
    : noCommandSandbox(detection.reason, settings);
}
