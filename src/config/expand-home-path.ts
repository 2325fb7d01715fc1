// `~` and `~/x` to the user's home; config files and variables are written by people who type `~`.
import path from "node:path";

export function expandHomePath(value: string, homeDirectory: string): string {
  if (value === "~") return homeDirectory;
  if (value.startsWith("~/") || value.startsWith(`~${path.sep}`)) {
    return path.join(homeDirectory, value.slice(2));
  }
  return value;
}

/** Expands `~`, then resolves a relative path against `baseDirectory`. */
export function resolveUserPath(
  value: string,
  baseDirectory: string,
  homeDirectory: string,
): string {
  return path.resolve(baseDirectory, expandHomePath(value, homeDirectory));
}
