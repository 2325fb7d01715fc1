// Issue 23's first two findings on Mesa's lavapipe, a Vulkan device that computes on the CPU, each
// case in a child process shown only lavapipe (the test runner never loads Vulkan): `gpu: auto`
// refuses it and decodes on the CPU; a forced `gpu = "vulkan"` runs Spark's native loop on it,
// calling node-llama-cpp's libllama.vulkan (before, the addon mapped the CPU package's libllama,
// whose registry was empty, and fell back), with the CPU backend's greedy text, sampled on the
// device as on the host; `spark doctor` reports both. `auto`'s refusal is remembered in the cache
// folder: a later process never loads the Vulkan binding, until a driver manifest changes.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DoctorReport } from "../../src/cli/doctor/doctor-report.ts";
import { formatDoctorReport } from "../../src/cli/doctor/format-doctor-report.ts";
import type { Timings } from "../../src/engines/engine.ts";
import type { RefusedGpu } from "../../src/engines/llama-cpp/llama-backend.ts";
import type { AddonBackendDevice } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { defaultAddonPath } from "../../src/engines/llama-cpp/native-loop/generation-loop-addon.ts";
import { runSpark } from "../cli/support/run-spark-cli.ts";
import {
  findLavapipeIcd,
  lavapipeEnvironment,
  lavapipeMissingReason,
} from "../support/lavapipe.ts";
import { ensureTestModel } from "../support/test-model.ts";

const CHILD = fileURLToPath(new URL("./support/engine-backend-child.ts", import.meta.url));

interface ChildReport {
  gpu: string | false;
  gpuDevices: string[];
  refused: RefusedGpu[];
  warning: string | undefined;
  decodeLoop: "native" | "node-llama-cpp";
  fallbackReason: string | undefined;
  gpuLayers: number;
  llamaLibrary: string | undefined;
  devices: AddonBackendDevice[];
  text: string;
  outputTokens: number | undefined;
  timings: Timings | undefined;
  /** Every llama-addon.node the child loaded, in order. */
  bindingsLoaded: string[];
}

/** One child process that opens an engine on each of `modelPaths` in turn: a report for each. */
function runChildOn(
  modelPaths: string[],
  gpu: string,
  env: NodeJS.ProcessEnv,
  deviceSampling: "auto" | "on" | "off" = "auto",
  cacheDirectory = "",
): Promise<ChildReport[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        "--import",
        "tsx",
        CHILD,
        modelPaths.join(delimiter),
        gpu,
        "hello",
        "24",
        deviceSampling,
        cacheDirectory,
      ],
      { env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const lines = stdout
          .trim()
          .split("\n")
          .filter((line) => line.startsWith("{"));
        if (error !== null || lines.length !== modelPaths.length) {
          const why = error?.message ?? `${lines.length} reports for ${modelPaths.length} models`;
          reject(new Error(`child (gpu ${gpu}) failed: ${why}\n${stderr.slice(-4000)}`));
          return;
        }
        resolve(lines.map((line) => JSON.parse(line) as ChildReport));
      },
    );
  });
}

async function runChild(
  modelPath: string,
  gpu: string,
  env: NodeJS.ProcessEnv,
  deviceSampling: "auto" | "on" | "off" = "auto",
  cacheDirectory = "",
): Promise<ChildReport> {
  const [report] = await runChildOn([modelPath], gpu, env, deviceSampling, cacheDirectory);
  return report!;
}

const missing = lavapipeMissingReason();
const notBuilt = existsSync(defaultAddonPath) ? undefined : "the native loop is not built";
if (notBuilt !== undefined && missing === undefined) console.warn(`Skipping: ${notBuilt}.`);

/** The CPU package's libllama (libllama.v0.5.0.so), not a GPU package's (libllama.vulkan.…). */
const CPU_LIBLLAMA = /\/libllama(\.v[\d.]+)?\.(so|dylib)$/;
/** node-llama-cpp's Vulkan package's binding (@node-llama-cpp/linux-x64-vulkan/…/llama-addon.node). */
const VULKAN_BINDING = /vulkan.*\/llama-addon\.node$/;

describe.skipIf(missing !== undefined || notBuilt !== undefined)("llama.cpp on lavapipe", () => {
  const icd = findLavapipeIcd() ?? "";
  let modelPath: string;
  let cpu: ChildReport;
  let home: string;

  beforeAll(async () => {
    modelPath = await ensureTestModel();
    home = await mkdtemp(join(tmpdir(), "spark-lavapipe-"));
    // The reference: the CPU backend, never shown a Vulkan device.
    const environment = { ...process.env };
    delete environment.VK_ICD_FILENAMES;
    cpu = await runChild(modelPath, "false", environment);
  }, 200_000);
  afterAll(async () => {
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  // The noise model, and a scripted one whose every logit is 0 after "OK": a tie across the
  // vocabulary, which the host breaks by lowest token and ggml_argmax (llama.cpp's backend greedy)
  // by no promised rule (on the CPU backend: the last token).
  const tiedModel = (): Promise<string> => ensureTestModel({ successors: { "\n": "O", O: "K" } });
  // gpu = "vulkan" with the default device_sampling ("auto": the host on Vulkan), both models in
  // one process: the forced-Vulkan case reads the first report, and the device-sampling case
  // compares its device's tokens with both (one Vulkan start on lavapipe less, ~5 s of CPU).
  let forcedVulkan: Promise<ChildReport[]> | undefined;
  const forcedVulkanRuns = async (): Promise<ChildReport[]> => {
    forcedVulkan ??= tiedModel().then((tied) =>
      runChildOn([modelPath, tied], "vulkan", lavapipeEnvironment(icd, true)),
    );
    return forcedVulkan;
  };

  it("the CPU reference runs the native loop on the CPU package's libllama", () => {
    expect(cpu).toMatchObject({ gpu: false, refused: [], decodeLoop: "native", gpuLayers: 0 });
    expect(cpu.llamaLibrary).toMatch(CPU_LIBLLAMA);
    expect(cpu.text.length).toBeGreaterThan(0);
    expect(cpu.timings?.decodeLoop).toBe("native");
  });

  it.each([
    { visible: false, reason: /the Vulkan backend found no GPU device/ },
    { visible: true, reason: /llvmpipe.* is a software device that runs on the CPU/ },
  ])(
    "gpu: auto refuses Vulkan on lavapipe (ggml shown it: $visible) and decodes natively on the CPU",
    async ({ visible, reason }) => {
      const auto = await runChild(modelPath, "auto", lavapipeEnvironment(icd, visible));
      expect(auto.gpu).toBe(false);
      expect(auto.refused).toHaveLength(1);
      expect(auto.refused[0]?.gpu).toBe("vulkan");
      expect(auto.refused[0]?.reason).toMatch(reason);
      expect(auto.warning).toBeUndefined();
      expect(auto.decodeLoop).toBe("native");
      expect(auto.llamaLibrary).toMatch(CPU_LIBLLAMA);
      expect(auto.gpuLayers).toBe(0);
      expect(auto.text).toBe(cpu.text);
    },
    200_000,
  );

  it("gpu: auto remembers the refusal in the cache folder: a later process loads no Vulkan binding and reports the same refusal, until a driver manifest changes", async () => {
    const cache = join(home, "remembered-cache");
    // A copy of the lavapipe manifest, so that the test can change it as a driver update would.
    const manifest = join(home, "lvp_icd_copy.json");
    await copyFile(icd, manifest);
    const environment = { ...lavapipeEnvironment(icd, true), VK_ICD_FILENAMES: manifest };
    const probed = await runChild(modelPath, "auto", environment, "auto", cache);
    expect(probed.bindingsLoaded).toContainEqual(expect.stringMatching(VULKAN_BINDING));
    expect(probed.refused).toHaveLength(1);
    expect(probed.refused[0]).toMatchObject({
      gpu: "vulkan",
      devices: [expect.stringMatching(/llvmpipe/)],
    });
    expect(probed.refused[0]?.remembered).toBeUndefined();

    const second = await runChild(modelPath, "auto", environment, "auto", cache);
    expect(second.bindingsLoaded).not.toContainEqual(expect.stringMatching(VULKAN_BINDING));
    expect(second.bindingsLoaded).toHaveLength(1);
    expect(second.refused).toEqual([{ ...probed.refused[0], remembered: true }]);
    expect([second.gpu, second.decodeLoop, second.gpuLayers]).toEqual([false, "native", 0]);
    expect(second.llamaLibrary).toMatch(CPU_LIBLLAMA);
    expect(second.text).toBe(cpu.text);

    // The same manifest with another mtime: the loader may read another driver now, so probe.
    await utimes(manifest, new Date(), new Date(Date.now() - 86_400_000));
    const changed = await runChild(modelPath, "auto", environment, "auto", cache);
    expect(changed.bindingsLoaded).toContainEqual(expect.stringMatching(VULKAN_BINDING));
    expect(changed.refused).toEqual([{ ...probed.refused[0] }]);
    expect(changed.gpu).toBe(false);
  }, 300_000);

  it("a forced gpu = vulkan runs the native loop on lavapipe, calling libllama.vulkan, with the CPU's greedy text", async () => {
    const [vulkan] = await forcedVulkanRuns();
    if (vulkan === undefined) throw new Error("the forced Vulkan process reported nothing");
    expect(vulkan.gpu).toBe("vulkan");
    expect(vulkan.gpuDevices).toEqual([expect.stringMatching(/llvmpipe/)]);
    expect(vulkan.warning).toMatch(/^gpu = "vulkan" runs on no real GPU: llvmpipe/);
    expect(vulkan.fallbackReason).toBeUndefined();
    expect(vulkan.decodeLoop).toBe("native");
    expect(vulkan.timings?.decodeLoop).toBe("native");
    expect(vulkan.llamaLibrary).toMatch(/\/libllama\.vulkan\.v[\d.]+\.so$/);
    expect(vulkan.devices.map((device) => device.description)).toContainEqual(
      expect.stringMatching(/llvmpipe/),
    );
    expect(vulkan.gpuLayers).toBeGreaterThan(0);
    expect(vulkan.outputTokens).toBe(cpu.outputTokens);
    expect(vulkan.text).toBe(cpu.text);
  }, 200_000);

  it("on lavapipe the greedy tokens sampled on the device are those sampled on the host, ties included", async () => {
    // "on": auto keeps Vulkan on the host (a sampler changed between jobs corrupted the heap on
    // lavapipe); each engine's one job sets it once, before the first decode. One process per
    // mode opens both models in turn (Vulkan's start on lavapipe is most of a process's time);
    // the host's are the forced-Vulkan case's runs, whose "auto" samples on the host (asserted).
    const onDevices = await runChildOn(
      [modelPath, await tiedModel()],
      "vulkan",
      lavapipeEnvironment(icd, true),
      "on",
    );
    const onHosts = await forcedVulkanRuns();
    for (const [index, onDevice] of onDevices.entries()) {
      const onHost = onHosts[index]!;
      expect([onDevice.gpu, onDevice.decodeLoop, onHost.decodeLoop]).toEqual([
        "vulkan",
        "native",
        "native",
      ]);
      // Vulkan runs the whole chain (the first-maximum greedy's ops): nothing fell back.
      expect(onDevice.timings?.sampling).toBe("device");
      expect(onHost.timings?.sampling).toBe("host");
      expect(onDevice.outputTokens).toBe(onHost.outputTokens);
      expect(onDevice.text).toBe(onHost.text);
    }
  }, 300_000);

  it("spark doctor: auto reports the refused device and no problem; forced vulkan, the loop on it and a warning", async () => {
    const configure = (gpu: string): Promise<void> =>
      writeFile(
        join(home, "config.toml"),
        `default_model = "local"\n[models.local]\nengine = "llama-cpp"\npath = "${modelPath}"\ngpu = ${gpu}\n`,
      );
    // ggml shown lavapipe, so that a forced Vulkan has a device to run on.
    const doctor = async (): Promise<{ report: DoctorReport; text: string }> => {
      const env = { SPARK_HOME: home, VK_ICD_FILENAMES: icd, GGML_VK_VISIBLE_DEVICES: "0" };
      const json = await runSpark(["doctor", "--offline", "--json"], env, home);
      expect(json.code, json.stderr).toBe(0);
      // JSON leaves out undefined fields; the text is what the same report prints.
      const report = JSON.parse(json.stdout) as DoctorReport;
      return { report, text: formatDoctorReport(report) };
    };

    await configure('"auto"');
    const auto = await doctor();
    expect(auto.report.llama.backend).toBe("CPU");
    expect(auto.report.llama.softwareGpuWarning).toBeUndefined();
    expect(auto.report.llama.refusedGpus).toEqual([
      expect.objectContaining({ backend: "Vulkan", devices: [expect.stringMatching(/llvmpipe/)] }),
    ]);
    expect(auto.report.decodeLoop).toMatchObject({
      loop: "native",
      // The CPU backend: "auto" samples on the host there (docs/gpu.md).
      opened: { model: "local", gpuLayers: 0, sampling: "host" },
    });
    expect(auto.report.decodeLoop.llamaLibrary).toMatch(CPU_LIBLLAMA);
    expect(auto.report.findings).toEqual([]);
    expect(auto.text).toMatch(
      /^ {2}refused Vulkan \(gpu = "auto"\): llvmpipe.*; using the CPU backend$/m,
    );
    // Doctor probes for real and leaves the refusal for later starts in the cache folder.
    const record = join(home, "cache", "llama-backend.json");
    expect(auto.report.llama.rememberedRefusal).toEqual({ path: record, matched: "none" });
    expect(existsSync(record)).toBe(true);
    expect(auto.text).toContain(`  remembered in ${record}: later starts skip the refused backend`);
    expect(auto.text).toContain("No problems found.");

    await configure('"vulkan"');
    const vulkan = await doctor();
    expect(vulkan.report.llama.backend).toBe("Vulkan");
    expect(vulkan.report.llama.devices).toEqual([expect.stringMatching(/llvmpipe/)]);
    expect(vulkan.report.decodeLoop.loop).toBe("native");
    expect(vulkan.report.decodeLoop.llamaLibrary).toMatch(/libllama\.vulkan\./);
    expect(vulkan.report.decodeLoop.opened?.gpuLayers).toBeGreaterThan(0);
    // device_sampling = "auto" keeps Vulkan's sampling on the host (docs/gpu.md).
    expect(vulkan.report.decodeLoop.opened?.sampling).toBe("host");
    expect(vulkan.report.findings.map((finding) => finding.status)).toEqual(["warning"]);
    expect(vulkan.report.findings[0]?.message).toMatch(
      /^gpu = "vulkan" runs on no real GPU: llvmpipe/,
    );
    expect(vulkan.text).toMatch(
      /^decode loop: native \(.*\)\n {2}calls .*libllama\.vulkan\.v[\d.]+\.so: .*llvmpipe/m,
    );
    expect(vulkan.text).toMatch(/^warning: gpu = "vulkan" runs on no real GPU/m);
  }, 200_000);
});
