// Command-line flags as the last config layers; each flag is its own layer so an error says
// "--port: ..." rather than pointing at a file.
import type { ConfigFlags } from "./config-types.ts";
import { createConfigLayer } from "./config-layer.ts";
import type { SettingLayers } from "./environment-layers.ts";
import { modelSelection } from "./environment-layers.ts";
import { parseIntegerSetting } from "./parse-integer-setting.ts";

export function flagLayers(flags: ConfigFlags, cwd: string, homeDirectory: string): SettingLayers {
  const result: SettingLayers = { layers: [], threads: undefined };
  const add = (source: string, values: unknown): void => {
    result.layers.push(createConfigLayer(source, values, cwd, homeDirectory));
  };
  if (flags.model !== undefined) add("--model", modelSelection(flags.model));
  if (flags.host !== undefined) add("--host", { serve: { host: flags.host } });
  if (flags.port !== undefined) {
    add("--port", { serve: { port: parseIntegerSetting("--port", flags.port, 0, 65535) } });
  }
  if (flags.store !== undefined) add("--store", { serve: { store: flags.store } });
  if (flags.threads !== undefined)
    result.threads = parseIntegerSetting("--threads", flags.threads, 1);
  return result;
}
