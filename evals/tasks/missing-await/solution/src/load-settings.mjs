import { readFile } from "node:fs/promises";

/** Merges the JSON objects in `paths`, later files overriding earlier ones. */
export async function loadSettings(paths) {
  const settings = {};
  for (const file of paths) {
    const text = await readFile(file, "utf8");
    Object.assign(settings, JSON.parse(text));
  }
  return settings;
}
