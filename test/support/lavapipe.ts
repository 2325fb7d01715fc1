// Mesa's lavapipe, a software Vulkan device, for the tests of what node-llama-cpp's Vulkan backend
// does where no real GPU is. Its ICD file is where mesa-vulkan-drivers puts it (CI's .ci/run
// installs the package), or a folder outside the loader's search path where a machine hides it
// from its other processes. Tests show it only to child processes, through VK_ICD_FILENAMES.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const ICD_FOLDERS = ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d", "/opt/vulkan-icd-hidden"];

/** The lavapipe ICD manifest (lvp_icd.<arch>.json), or undefined. */
export function findLavapipeIcd(): string | undefined {
  for (const folder of ICD_FOLDERS) {
    if (!existsSync(folder)) continue;
    const manifest = readdirSync(folder).find((name) => /^lvp_icd\b.*\.json$/.test(name));
    if (manifest !== undefined) return join(folder, manifest);
  }
  return undefined;
}

/**
 * Why the lavapipe tests cannot run here (printed, and they skip), or undefined when they can.
 * Under CI=true a missing ICD fails instead: .ci/run installs mesa-vulkan-drivers.
 */
export function lavapipeMissingReason(): string | undefined {
  if (process.platform !== "linux") return "lavapipe is tested on Linux only";
  if (findLavapipeIcd() !== undefined) return undefined;
  const reason = `no lavapipe ICD in ${ICD_FOLDERS.join(", ")} (apt-get install -y mesa-vulkan-drivers)`;
  if (process.env.CI === "true") {
    throw new Error(`The lavapipe tests must run in CI, but ${reason}.`);
  }
  console.warn(`Skipping the lavapipe tests: ${reason}.`);
  return reason;
}

/**
 * The environment that shows lavapipe (and only it) to a child process. `visible`: also make ggml
 * use it, as GGML_VK_VISIBLE_DEVICES does; without it ggml's Vulkan backend skips CPU-type
 * devices and loads with none, as it does on a desktop with only Mesa's drivers.
 */
export function lavapipeEnvironment(icd: string, visible: boolean): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...process.env, VK_ICD_FILENAMES: icd };
  delete environment.VK_DRIVER_FILES;
  if (visible) environment.GGML_VK_VISIBLE_DEVICES = "0";
  else delete environment.GGML_VK_VISIBLE_DEVICES;
  return environment;
}
