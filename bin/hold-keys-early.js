// The terminal UI's first moment: raw mode (no echo) before the CLI loads, so keys typed during
// the ~1 s to its first frame (~2 s through tsx) stay in the terminal's input queue, unechoed,
// until holdTypeAhead (src/tui/type-ahead.ts) reads them for the prompt. Nothing is read here.

/** Options of `spark [tui]` that take a value (commander's `--name value` and `--name=value`). */
const VALUE_OPTIONS = new Set(["-m", "--model", "--server", "--session", "--cwd"]);
const FLAG_OPTIONS = new Set(["--allow-commands"]);

/**
 * Whether these arguments start the interactive UI: no command, or `tui`, and only its options.
 * Anything else (exec, serve, prompt, --help, --version, an unknown word) is left alone.
 */
export function startsTerminalUi(argumentsAfterScript) {
  for (let index = 0; index < argumentsAfterScript.length; index += 1) {
    const argument = argumentsAfterScript[index];
    if (argument === "tui" && index === 0) continue;
    if (FLAG_OPTIONS.has(argument)) continue;
    if (VALUE_OPTIONS.has(argument)) {
      index += 1;
      continue;
    }
    if (argument.startsWith("--") && VALUE_OPTIONS.has(argument.slice(0, argument.indexOf("="))))
      continue;
    return false;
  }
  return true;
}

/** Raw mode now, only for the UI on a real terminal (a pipe or a script keeps its stdin as is). */
export function holdKeysEarly(processArguments = process.argv.slice(2)) {
  if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return false;
  if (!startsTerminalUi(processArguments)) return false;
  // Node puts the terminal's mode back when it exits, whatever happens before the UI starts.
  process.stdin.setRawMode(true);
  return true;
}
