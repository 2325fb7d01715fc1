// SPARK_* variables as config layers (one per variable, so an error names it) plus the provider
// API keys, which stay out of the config tree and are handed out as `providerKeys`.
import type { ConfigLayer } from "./config-layer.ts";
import { createConfigLayer } from "./config-layer.ts";
import { parseIntegerSetting } from "./parse-integer-setting.ts";
import { KNOWN_PROVIDER_KEY_VARIABLES } from "./provider-presets.ts";

export interface SettingLayers {
  layers: ConfigLayer[];
  /** A thread count that is not a plain layer: see how loadConfig applies it. */
  threads: number | undefined;
}

/** The model name an implicit `--model /x.gguf` or SPARK_MODEL_PATH entry gets. */
export const IMPLICIT_LOCAL_MODEL_NAME = "local";

export function environmentLayers(
  env: Record<string, string | undefined>,
  cwd: string,
  homeDirectory: string,
): SettingLayers {
  const layers: ConfigLayer[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const add = (source: string, values: unknown): void => {
    layers.push(createConfigLayer(source, values, cwd, homeDirectory));
  };

  const modelPath = read("SPARK_MODEL_PATH");
  if (modelPath !== undefined) add("SPARK_MODEL_PATH", implicitLocalModel(modelPath));
  const model = read("SPARK_MODEL");
  if (model !== undefined) add("SPARK_MODEL", modelSelection(model));
  const host = read("SPARK_HOST");
  if (host !== undefined) add("SPARK_HOST", { serve: { host } });
  const port = read("SPARK_PORT");
  if (port !== undefined)
    add("SPARK_PORT", { serve: { port: parseIntegerSetting("SPARK_PORT", port, 0, 65535) } });
  const store = read("SPARK_STORE");
  if (store !== undefined) add("SPARK_STORE", { serve: { store } });
  const threads = read("SPARK_THREADS");
  return {
    layers,
    threads: threads === undefined ? undefined : parseIntegerSetting("SPARK_THREADS", threads, 1),
  };
}

/** `--model`/SPARK_MODEL accept a .gguf path as well as a name: the path becomes model "local". */
const SCRIPT_PREFIX = "script:";

/** A model flag or variable: a configured name, a .gguf path, or `script:<file.jsonl>`. */
export function modelSelection(value: string): unknown {
  if (value.startsWith(SCRIPT_PREFIX)) {
    return {
      default_model: "script",
      models: { script: { engine: "script", path: value.slice(SCRIPT_PREFIX.length) } },
    };
  }
  return value.toLowerCase().endsWith(".gguf")
    ? implicitLocalModel(value)
    : { default_model: value };
}

function implicitLocalModel(modelPath: string): unknown {
  return {
    default_model: IMPLICIT_LOCAL_MODEL_NAME,
    models: { [IMPLICIT_LOCAL_MODEL_NAME]: { engine: "llama-cpp", path: modelPath } },
  };
}

/** Known provider keys plus any variable a model's api_key_env names. */
export function readProviderKeys(
  env: Record<string, string | undefined>,
  extraVariableNames: Iterable<string>,
): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const name of [...KNOWN_PROVIDER_KEY_VARIABLES, ...extraVariableNames]) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== "") keys[name] = value;
  }
  return keys;
}
