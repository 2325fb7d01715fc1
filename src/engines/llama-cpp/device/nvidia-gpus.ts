// The NVIDIA GPUs the driver reports (`nvidia-smi`), independent of whether node-llama-cpp's CUDA
// backend loaded: the two disagreeing is exactly what the GPU benchmark and `spark doctor` report.
import { execFile } from "node:child_process";

export interface NvidiaGpu {
  name: string;
  /** "9.0" for an H100; the CUDA module needs machine code (SASS) or PTX for it. */
  computeCapability: string;
  memoryMiB: number;
  driverVersion: string;
}

const QUERY = [
  "--query-gpu=name,compute_cap,memory.total,driver_version",
  "--format=csv,noheader,nounits",
];

/** The GPUs `nvidia-smi` lists; none when it is missing, fails or takes longer than the timeout. */
export function queryNvidiaGpus(options: { timeoutMs?: number } = {}): Promise<NvidiaGpu[]> {
  return new Promise((resolve) => {
    execFile(
      "nvidia-smi",
      QUERY,
      { timeout: options.timeoutMs ?? 5000, windowsHide: true },
      (error, stdout) => resolve(error === null ? parseNvidiaSmiGpus(stdout) : []),
    );
  });
}

/** Parses `nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version` CSV rows. */
export function parseNvidiaSmiGpus(csv: string): NvidiaGpu[] {
  const gpus: NvidiaGpu[] = [];
  for (const line of csv.split("\n")) {
    const fields = line.split(",").map((field) => field.trim());
    if (fields.length < 4) continue;
    // The name may hold commas; the last three fields never do.
    const driverVersion = fields.at(-1) as string;
    const memoryMiB = Number(fields.at(-2));
    const computeCapability = fields.at(-3) as string;
    const name = fields.slice(0, -3).join(", ");
    if (name === "" || !/^\d+\.\d+$/.test(computeCapability)) continue;
    gpus.push({ name, computeCapability, memoryMiB, driverVersion });
  }
  return gpus;
}
