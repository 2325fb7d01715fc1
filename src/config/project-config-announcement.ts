// What a project's own ./.spark/config.toml chose about which model or engine runs, as the line
// every surface shows before the first turn (`spark exec` and `spark serve` on stderr, the terminal
// UI as a notice). The file comes with the repository, and whatever wrote it (a clone, the agent
// itself in an earlier session) could point the session at a model or a replayed script of its
// own: the user must see that, not discover it from the model's behaviour.
import path from "node:path";
import type { ConfigLayerValues } from "./config-schema.ts";
import type { LoadedConfig } from "./config-types.ts";
import { describeMcpTransport } from "./mcp-server-config.ts";

/** The keys of a `[models.<name>]` entry that decide what runs (the rest only tune it). */
export const MODEL_CHOICE_KEYS = ["engine", "path", "preset", "model", "api", "transport"] as const;

/** The `[router]` keys that send requests to a model. */
const ROUTER_CHOICE_KEYS = ["client_models", "auto_default", "rules"] as const;

/** A value longer than this is cut: the line names the key; the file has the rest. */
const MAX_VALUE_CHARACTERS = 120;

/**
 * One line naming the project's config file and every model-choosing key it sets with its value,
 * or none when it sets none (or there is no project file). `cwd`: what the file path and model
 * paths are shown relative to.
 */
export function projectConfigAnnouncements(
  config: Pick<LoadedConfig, "projectConfig" | "mcpServers">,
  cwd: string,
): string[] {
  const project = config.projectConfig;
  if (project === undefined) return [];
  const settings = modelChoices(project.values, cwd);
  const file = displayPath(project.source, cwd);
  const lines = settings.length === 0 ? [] : [`${file} (this project) sets ${settings.join(", ")}`];
  // An MCP server is a program (or a URL) of the repository's choosing: said even when trusted.
  for (const server of Object.values(config.mcpServers ?? {})) {
    if (server.origin === "user") continue;
    const what = `${file} (this project) declares MCP server ${JSON.stringify(server.name)} (${formatValue(describeMcpTransport(server.transport))})`;
    lines.push(
      server.origin === "trusted-project"
        ? `${what}: starting it, as your [mcp] trusted_project_servers allows`
        : `${what}: not started; to allow it, add ${JSON.stringify(server.name)} to [mcp] trusted_project_servers in your own config`,
    );
  }
  return lines.map(printable);
}

function modelChoices(values: ConfigLayerValues, cwd: string): string[] {
  const settings: string[] = [];
  const add = (key: string, value: unknown): void => {
    if (value !== undefined) settings.push(`${key} = ${formatValue(value)}`);
  };
  add("preset", values.preset);
  add("default_model", values.default_model);
  for (const [name, model] of Object.entries(values.models ?? {})) {
    for (const key of MODEL_CHOICE_KEYS) {
      // Model paths were made absolute when the file was read; relative reads better here.
      const value =
        key === "path" && model.path !== undefined ? displayPath(model.path, cwd) : model[key];
      add(`models.${name}.${key}`, value);
    }
  }
  for (const [alias, targets] of Object.entries(values.routes ?? {}))
    add(`routes.${alias}`, targets);
  for (const key of ROUTER_CHOICE_KEYS) add(`router.${key}`, values.router?.[key]);
  return settings;
}

function formatValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARACTERS ? `${text.slice(0, MAX_VALUE_CHARACTERS)}…` : text;
}

/** `./x` or `../x` when near `cwd`, else the absolute path. */
function displayPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  if (relative.startsWith(`..${path.sep}..${path.sep}..`) || path.isAbsolute(relative)) return file;
  return relative.startsWith("..") ? relative : `.${path.sep}${relative}`;
}

/** Code point ranges a terminal would act on or not show: C0 and C1 controls, DEL, soft hyphen,
 * zero-width characters, line and paragraph separators, bidirectional marks and overrides. */
const HIDDEN_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  [0xad, 0xad],
  [0x61c, 0x61c],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0xfeff, 0xfeff],
];

/**
 * The line goes to a terminal, and every character of it came from the repository: hidden
 * characters are shown as \u escapes so the file cannot rewrite the line or the screen around it
 * (JSON.stringify escapes only C0 controls, and the file's own path is not JSON).
 */
function printable(text: string): string {
  let result = "";
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    const hidden = HIDDEN_RANGES.some(([first, last]) => code >= first && code <= last);
    result += hidden ? `\\u${code.toString(16).padStart(4, "0")}` : character;
  }
  return result;
}
