// What `spark models` shows for local files: the .gguf files in <spark home>/models with sizes
// (unfinished `.partial` downloads are not models yet and are left out).
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { modelsDirectory } from "./models-directory.ts";

export interface LocalModelFile {
  fileName: string;
  path: string;
  sizeBytes: number;
  modifiedAt: Date;
}

export async function listLocalModels(sparkHome: string): Promise<LocalModelFile[]> {
  const directory = modelsDirectory(sparkHome);
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") {
      return [];
    }
    throw error;
  }
  const models: LocalModelFile[] = [];
  for (const fileName of names.filter((name) => name.toLowerCase().endsWith(".gguf")).sort()) {
    const filePath = path.join(directory, fileName);
    const stats = await stat(filePath).catch(() => undefined);
    if (stats?.isFile() !== true) continue;
    models.push({ fileName, path: filePath, sizeBytes: stats.size, modifiedAt: stats.mtime });
  }
  return models;
}
