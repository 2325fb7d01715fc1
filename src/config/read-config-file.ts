// Reads one config.toml into a checked layer; a missing file is simply no layer, a broken one is an
// error that names the file and, for TOML syntax, the line and column.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse, TomlError } from "smol-toml";
import { SparkError } from "../protocol/spark-error.ts";
import { createConfigLayer, type ConfigLayer } from "./config-layer.ts";

export async function readConfigFile(
  filePath: string,
  homeDirectory: string,
): Promise<ConfigLayer | undefined> {
  let text: string;
  try {
    text = await readFile(filePath, "utf8");
  } catch (error) {
    if (isErrorWithCode(error, "ENOENT")) return undefined;
    const reason = error instanceof Error ? error.message : String(error);
    throw new SparkError("invalid_config", `${filePath}: cannot be read (${reason})`, {
      cause: error,
    });
  }
  let rawValues: unknown;
  try {
    rawValues = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      // smol-toml's message carries a code excerpt after the first line; the location is enough.
      const reason = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document: /, "");
      throw new SparkError(
        "invalid_config",
        `${filePath}:${error.line}:${error.column}: TOML syntax error: ${reason}`,
        { cause: error },
      );
    }
    throw error;
  }
  return createConfigLayer(filePath, rawValues, path.dirname(filePath), homeDirectory);
}

function isErrorWithCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === code;
}
