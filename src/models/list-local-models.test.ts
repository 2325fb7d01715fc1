// Local model listing: only finished .gguf files, sorted, with sizes; no directory is no models.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { listLocalModels } from "./list-local-models.ts";

let sparkHome: string;

beforeEach(async () => {
  sparkHome = await mkdtemp(path.join(os.tmpdir(), "spark-models-"));
});

afterEach(async () => {
  await rm(sparkHome, { recursive: true, force: true });
});

it("lists finished .gguf files with their sizes", async () => {
  expect(await listLocalModels(sparkHome)).toEqual([]);
  const directory = path.join(sparkHome, "models");
  await mkdir(path.join(directory, "folder.gguf"), { recursive: true });
  await writeFile(path.join(directory, "b.gguf"), Buffer.alloc(20));
  await writeFile(path.join(directory, "a.GGUF"), Buffer.alloc(10));
  await writeFile(path.join(directory, "c.gguf.partial"), Buffer.alloc(5));
  await writeFile(path.join(directory, "notes.txt"), "x");
  const models = await listLocalModels(sparkHome);
  expect(
    models.map(({ fileName, sizeBytes, path: filePath }) => [fileName, sizeBytes, filePath]),
  ).toEqual([
    ["a.GGUF", 10, path.join(directory, "a.GGUF")],
    ["b.gguf", 20, path.join(directory, "b.gguf")],
  ]);
  expect(models[0]?.modifiedAt).toBeInstanceOf(Date);
});
