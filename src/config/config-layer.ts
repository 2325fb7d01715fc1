// One source of settings (a file, a variable, a flag) checked on its own, so an error can name the
// file or variable it came from rather than the merged result.
import { SparkError } from "../protocol/spark-error.ts";
import { configLayerSchema, type ConfigLayerValues } from "./config-schema.ts";
import { resolveUserPath } from "./expand-home-path.ts";
import { formatConfigIssue } from "./format-config-issue.ts";

export interface ConfigLayer {
  /** A file path, a variable name (SPARK_PORT) or a flag (--port): what an error names. */
  source: string;
  values: ConfigLayerValues;
}

/** Validates raw values from `source`; model paths are resolved against `baseDirectory`. */
export function createConfigLayer(
  source: string,
  rawValues: unknown,
  baseDirectory: string,
  homeDirectory: string,
): ConfigLayer {
  const result = configLayerSchema.safeParse(rawValues, { reportInput: true });
  if (!result.success) {
    const issue = result.error.issues[0];
    const formatted = issue === undefined ? undefined : formatConfigIssue(issue);
    const detail =
      formatted === undefined ? "invalid" : `${formatted.keyPath}: ${formatted.message}`;
    throw new SparkError("invalid_config", `${source}: ${detail}`, { cause: result.error });
  }
  const values = result.data;
  for (const model of Object.values(values.models ?? {})) {
    if (model.path !== undefined)
      model.path = resolveUserPath(model.path, baseDirectory, homeDirectory);
  }
  // Relative roots mean relative to the file (or the working folder for flags and variables).
  if (values.agent?.workspace_roots !== undefined) {
    values.agent.workspace_roots = values.agent.workspace_roots.map((root) =>
      resolveUserPath(root, baseDirectory, homeDirectory),
    );
  }
  if (values.cache?.directory !== undefined) {
    values.cache.directory = resolveUserPath(values.cache.directory, baseDirectory, homeDirectory);
  }
  return { source, values };
}
