// What run_command's children run inside: bubblewrap (Linux) confining writes to the workspace,
// or nothing. Plain data, so a session, its tools, doctor and the surfaces can all carry it.

export interface CommandSandbox {
  kind: "bubblewrap" | "none";
  /** One line for doctor and startup notices. */
  description: string;
  /** Why there is no sandbox; set exactly when kind is "none". */
  reason?: string;
  /** The bwrap executable; set exactly when kind is "bubblewrap". */
  bubblewrapPath?: string;
  /** Whether sandboxed commands reach the network (without a sandbox nothing stops them). */
  network: boolean;
  /** Variables passed to commands beyond the built-in allow-list (`[sandbox] env`). */
  passEnvironment: readonly string[];
}

export interface CommandSandboxSettings {
  network?: boolean;
  passEnvironment?: readonly string[];
}

export function bubblewrapSandbox(
  bubblewrapPath: string,
  settings: CommandSandboxSettings = {},
): CommandSandbox {
  const network = settings.network ?? false;
  return {
    kind: "bubblewrap",
    description: `bubblewrap (writes: workspace only, network: ${network ? "on" : "off"})`,
    bubblewrapPath,
    network,
    passEnvironment: settings.passEnvironment ?? [],
  };
}

export function noCommandSandbox(
  reason: string,
  settings: CommandSandboxSettings = {},
): CommandSandbox {
  return {
    kind: "none",
    description: `none — ${reason}; commands outside the read-only list always ask`,
    reason,
    // Nothing confines the network without a sandbox; say so rather than pretend it is off.
    network: true,
    passEnvironment: settings.passEnvironment ?? [],
  };
}
