// Where Spark keeps its own files: `$SPARK_HOME` when set, else ~/.spark. Models, sessions and the
// user config all hang off this one directory so moving it moves everything.
import os from "node:os";
import path from "node:path";
import { expandHomePath } from "./expand-home-path.ts";

export interface SparkHomeOptions {
  env?: Record<string, string | undefined>;
  homeDirectory?: string;
  /** Resolves a relative SPARK_HOME; defaults to process.cwd(). */
  cwd?: string;
}

export function sparkHome(options: SparkHomeOptions = {}): string {
  const env = options.env ?? process.env;
  const homeDirectory = options.homeDirectory ?? os.homedir();
  const configured = env.SPARK_HOME;
  if (configured !== undefined && configured.trim() !== "") {
    return path.resolve(
      options.cwd ?? process.cwd(),
      expandHomePath(configured.trim(), homeDirectory),
    );
  }
  return path.join(homeDirectory, ".spark");
}
