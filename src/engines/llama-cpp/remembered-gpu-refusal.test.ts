import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  gpuRefusalPath,
  readRememberedRefusal,
  rememberRefusal,
  vulkanDriverManifests,
  type ProbedRefusal,
} from "./remembered-gpu-refusal.ts";

describe("remembered GPU refusal", () => {
  let folder: string;
  let binding: string;
  let refusal: ProbedRefusal;

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), "spark-gpu-refusal-"));
    binding = join(folder, "llama-addon.node");
    await writeFile(binding, "binding");
    refusal = { gpu: "vulkan", devices: ["llvmpipe"], reason: "software", bindingPath: binding };
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("reads back what it wrote while nothing changed, and nothing once the binding changed", async () => {
    const cache = join(folder, "cache");
    await rememberRefusal(cache, [refusal]);
    expect(await readRememberedRefusal(cache)).toEqual([refusal]);
    await utimes(binding, new Date(), new Date(Date.now() - 60_000));
    expect(await readRememberedRefusal(cache)).toBeUndefined();
  });

  it("ignores a corrupt record, which the next refusal replaces", async () => {
    await writeFile(gpuRefusalPath(folder), '{"version":1,"key":');
    expect(await readRememberedRefusal(folder)).toBeUndefined();
    await writeFile(
      gpuRefusalPath(folder),
      JSON.stringify({ version: 1, key: "x", refused: [{}] }),
    );
    expect(await readRememberedRefusal(folder)).toBeUndefined();
    await rememberRefusal(folder, [refusal]);
    expect(await readRememberedRefusal(folder)).toEqual([refusal]);
  });

  it("does not match once the environment selects other devices", async () => {
    await rememberRefusal(folder, [refusal]);
    const before = process.env.GGML_VK_VISIBLE_DEVICES;
    process.env.GGML_VK_VISIBLE_DEVICES = "7";
    try {
      expect(await readRememberedRefusal(folder)).toBeUndefined();
    } finally {
      if (before === undefined) delete process.env.GGML_VK_VISIBLE_DEVICES;
      else process.env.GGML_VK_VISIBLE_DEVICES = before;
    }
  });

  it("lists the manifests VK_ICD_FILENAMES names instead of the standard folders, plus VK_ADD_DRIVER_FILES's", async () => {
    const manifest = join(folder, "one_icd.json");
    const added = join(folder, "added");
    await writeFile(manifest, "{}");
    await rm(added, { force: true });
    const listed = await vulkanDriverManifests({
      VK_ICD_FILENAMES: manifest,
      VK_ADD_DRIVER_FILES: added,
    });
    expect(listed).toEqual([expect.stringMatching(/one_icd\.json:2:[\d.]+$/), `${added}:missing`]);
    const standard = await vulkanDriverManifests({ HOME: folder, XDG_DATA_DIRS: folder });
    expect(standard).toContain(`${join(folder, ".config", "vulkan", "icd.d")}:missing`);
    expect(standard).not.toContainEqual(expect.stringContaining("one_icd"));
  });
});
