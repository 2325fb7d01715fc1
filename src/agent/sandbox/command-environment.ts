// The environment run_command's children get, sandboxed or not: an allow-list of variables that
// make a shell and its tools behave (locale, terminal, paths), plus the names the user lists in
// `[sandbox] env`. An allow-list, because secrets have no common shape: OPENAI_API_KEY,
// SPARK_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, a database URL with a password in it.

const ALLOWED_NAMES: ReadonlySet<string> = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TERM",
  "COLORTERM",
  "TZ",
  "TMPDIR",
  "NO_COLOR",
  "FORCE_COLOR",
  "CI",
  "EDITOR",
  "VISUAL",
  "PAGER",
  // What cmd.exe and Windows tools need to start at all (names there are case-insensitive).
  "SYSTEMROOT",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "TEMP",
  "TMP",
]);

/** LC_ALL, LC_CTYPE, …: locale settings only. */
const ALLOWED_PREFIX = "LC_";

export function isAllowedByDefault(name: string): boolean {
  const upper = process.platform === "win32" ? name.toUpperCase() : name;
  return ALLOWED_NAMES.has(upper) || upper.startsWith(ALLOWED_PREFIX);
}

/**
 * The variables of `source` a command may see: the allow-list and `passNames`; everything else
 * stays in Spark's process. `overrides` are set last (the sandbox's private TMPDIR).
 */
export function commandEnvironment(
  source: NodeJS.ProcessEnv,
  passNames: readonly string[] = [],
  overrides: Record<string, string> = {},
): Record<string, string> {
  const passed = new Set(passNames);
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (isAllowedByDefault(name) || passed.has(name)) environment[name] = value;
  }
  return { ...environment, ...overrides };
}
