// The one entry point for settings: ~/.spark/config.toml, then the nearest ./.spark/config.toml,
// then SPARK_* variables, then flags; later layers win key by key, and every error names its source.
// A project's file may not set the security keys (project-config-limits.ts).
import os from "node:os";
import path from "node:path";
import { SparkError } from "../protocol/spark-error.ts";
import type { ConfigLayer } from "./config-layer.ts";
import { mergedConfigSchema } from "./config-schema.ts";
import type { ConfigFlags, LoadedConfig } from "./config-types.ts";
import { environmentLayers, readProviderKeys } from "./environment-layers.ts";
import { flagLayers } from "./flag-layers.ts";
import { formatConfigIssue } from "./format-config-issue.ts";
import { markProjectMcpServers } from "./mcp-server-config.ts";
import { mergeConfigLayers, sourceOf } from "./merge-config-layers.ts";
import { rejectUserOnlyKeys } from "./project-config-limits.ts";
import { readConfigFile } from "./read-config-file.ts";
import { sparkHome } from "./spark-home.ts";
import { toSparkConfig } from "./to-spark-config.ts";

export interface LoadConfigOptions {
  /** Where the search for ./.spark/config.toml starts; relative flag/variable paths resolve here. */
  cwd: string;
  env: Record<string, string | undefined>;
  flags?: ConfigFlags;
  /** Replaces os.homedir() (tests); `~` in paths expands to it. */
  homeDirectory?: string;
}

export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const cwd = path.resolve(options.cwd);
  const homeDirectory = options.homeDirectory ?? os.homedir();
  const home = sparkHome({ env: options.env, homeDirectory, cwd });
  const userConfigPath = path.join(home, "config.toml");

  const fileLayers: ConfigLayer[] = [];
  const userLayer = await readConfigFile(userConfigPath, homeDirectory);
  if (userLayer !== undefined) fileLayers.push(userLayer);
  const projectLayer = await findProjectConfig(cwd, homeDirectory, [
    userConfigPath,
    // With SPARK_HOME elsewhere, ~/.spark is still a user directory, never a project's.
    path.join(homeDirectory, ".spark", "config.toml"),
  ]);
  if (projectLayer !== undefined) {
    rejectUserOnlyKeys(projectLayer, userConfigPath);
    fileLayers.push(projectLayer);
  }
  const environment = environmentLayers(options.env, cwd, homeDirectory);
  const flags = flagLayers(options.flags ?? {}, cwd, homeDirectory);
  const layers = [...fileLayers, ...environment.layers, ...flags.layers];

  const merged = mergeConfigLayers(layers);
  const result = mergedConfigSchema.safeParse(merged.values, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0];
    const formatted = issue === undefined ? undefined : formatConfigIssue(issue);
    const source = (formatted && sourceOf(merged.provenance, formatted.path)) ?? "configuration";
    const detail =
      formatted === undefined ? "invalid" : `${formatted.keyPath}: ${formatted.message}`;
    throw new SparkError("invalid_config", `${source}: ${detail}`, { cause: result.error });
  }

  const config = toSparkConfig(result.data);
  markProjectMcpServers(
    config.mcpServers ?? {},
    Object.keys(projectLayer?.values.mcp_servers ?? {}),
    result.data.mcp.trusted_project_servers,
  );
  const keyVariables: string[] = [];
  for (const model of Object.values(config.models)) {
    if (model.engine === "llama-cpp") {
      // SPARK_THREADS fills in; --threads is an explicit request for this run and overrides.
      const threads = flags.threads ?? model.threads ?? environment.threads;
      if (threads !== undefined) model.threads = threads;
    } else if (model.engine === "openai-compatible" && model.apiKeyEnv !== undefined) {
      keyVariables.push(model.apiKeyEnv);
    }
  }
  return {
    ...config,
    providerKeys: readProviderKeys(options.env, keyVariables),
    sources: fileLayers.map((layer) => layer.source),
    sparkHome: home,
    ...(projectLayer === undefined ? {} : { projectConfig: projectLayer }),
  };
}

/** The nearest .spark/config.toml from cwd upwards, skipping the user's own config files. */
async function findProjectConfig(
  cwd: string,
  homeDirectory: string,
  userConfigPaths: string[],
): Promise<ConfigLayer | undefined> {
  let directory = cwd;
  for (;;) {
    const candidate = path.join(directory, ".spark", "config.toml");
    if (!userConfigPaths.includes(candidate)) {
      const layer = await readConfigFile(candidate, homeDirectory);
      if (layer !== undefined) return layer;
    }
    const parent = path.dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}
