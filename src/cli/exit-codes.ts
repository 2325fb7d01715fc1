// The exit codes the agent commands share (exec, eval, tui), and commander's parse errors mapped
// onto them. Light on purpose: every command's registration imports it at start-up.
import type { CommanderError } from "commander";

export const EXIT_SUCCESS = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

/** Commander's parse errors (unknown option, missing argument) are usage errors: exit 2. */
export function exitWithUsageCodes(error: CommanderError): never {
  process.exit(error.exitCode === 0 ? EXIT_SUCCESS : EXIT_USAGE);
}
