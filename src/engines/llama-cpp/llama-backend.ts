// node-llama-cpp's backend for a GPU setting, with the binding file it loaded (the native loop
// binds to the llama.cpp behind that very file) and `gpu: auto`'s refusal of software devices:
// a GPU backend whose devices all compute on the CPU is disposed and the next one tried, and that
// refusal remembered in the cache folder so that a later process skips the GPU backend's probe.
import { basename } from "node:path";
import { getLlama, LlamaLogLevel, type Llama, type LlamaGpuType } from "node-llama-cpp";
import { softwareGpuReason } from "./device/software-gpu.ts";
import {
  forgetRefusal,
  readRememberedRefusal,
  rememberRefusal,
  type ProbedRefusal,
} from "./remembered-gpu-refusal.ts";

export type GpuSetting = "auto" | false | "cuda" | "vulkan" | "metal";

export const gpuBackendNames = { cuda: "CUDA", vulkan: "Vulkan", metal: "Metal" } as const;

export interface RefusedGpu {
  gpu: Exclude<LlamaGpuType, false>;
  devices: string[];
  reason: string;
  /** Read from an earlier process's record (remembered-gpu-refusal.ts) instead of probed. */
  remembered?: true;
}

export interface LlamaBackend {
  llama: Llama;
  /** The llama-addon.node node-llama-cpp loaded for `llama`; undefined if none was seen. */
  bindingPath: string | undefined;
  /** GPU backends `auto` loaded and gave up, in order: they had only software devices. */
  refused: RefusedGpu[];
  /** An explicitly configured GPU backend on a software device: kept, with this warning. */
  warning: string | undefined;
}

type GetLlamaGpu = GpuSetting | { type: "auto"; exclude: Exclude<LlamaGpuType, false>[] };

// getLlama calls run one at a time: the binding each loaded is told apart by the order of loads.
let loading: Promise<unknown> = Promise.resolve();

/**
 * getLlama, noting which binding it loaded. node-llama-cpp keeps the path to itself; Node loads
 * every addon through process.dlopen, so the calls made during getLlama say it (the last
 * llama-addon.node loaded is the one getLlama settled on after any fallbacks).
 */
function loadLlama(gpu: GetLlamaGpu): Promise<{ llama: Llama; bindingPath: string | undefined }> {
  const run = loading.then(async () => {
    const loaded: string[] = [];
    // Restored as it was; called below with process as `this`.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const dlopen = process.dlopen;
    process.dlopen = (...args: Parameters<typeof process.dlopen>): void => {
      dlopen.apply(process, args);
      loaded.push(args[1]);
    };
    try {
      const llama = await getLlama({
        gpu,
        logLevel: LlamaLogLevel.error,
        progressLogs: false,
        build: "never",
      });
      const bindings = loaded.filter((path) => basename(path).startsWith("llama-addon"));
      return { llama, bindingPath: bindings.at(-1) };
    } finally {
      process.dlopen = dlopen;
    }
  });
  loading = run.catch(() => undefined);
  return run;
}

export interface OpenLlamaBackendOptions {
  /**
   * The cache folder (`[cache]`) where `auto`'s refusal of a software GPU is remembered: a start
   * that finds a matching record skips that backend (never loads it) and reports the same refusal.
   * Unset: probe every time (a cache turned off).
   */
  rememberIn?: string;
  /**
   * Probe even where a record matches, and rewrite it from what was found (spark doctor, the
   * diagnostic: a refusal that no longer holds is forgotten).
   */
  probe?: boolean;
}

export async function openLlamaBackend(
  gpu: GpuSetting,
  options: OpenLlamaBackendOptions = {},
): Promise<LlamaBackend> {
  const memory = gpu === "auto" ? options.rememberIn : undefined;
  const remembered =
    memory === undefined || options.probe === true
      ? undefined
      : await readRememberedRefusal(memory);
  const refused: RefusedGpu[] = (remembered ?? []).map(({ gpu, devices, reason }) => ({
    gpu,
    devices,
    reason,
    remembered: true,
  }));
  const probed: ProbedRefusal[] = [];
  let cpuOnly = false;
  for (;;) {
    const exclude = refused.map((refusal) => refusal.gpu);
    const { llama, bindingPath } = await loadLlama(
      cpuOnly ? false : gpu === "auto" && exclude.length > 0 ? { type: "auto", exclude } : gpu,
    );
    const done = async (warning: string | undefined): Promise<LlamaBackend> => {
      if (memory !== undefined && probed.length > 0)
        await rememberRefusal(memory, [...(remembered ?? []), ...probed]);
      else if (memory !== undefined && options.probe === true) await forgetRefusal(memory);
      return { llama, bindingPath, refused, warning };
    };
    if (llama.gpu === false) return done(undefined);
    const devices = await llama.getGpuDeviceNames();
    const reason = softwareGpuReason(gpuBackendNames[llama.gpu], devices);
    if (reason === undefined) return done(undefined);
    if (gpu !== "auto") {
      const warning = `gpu = "${gpu}" runs on no real GPU: ${reason}. Set gpu = "auto" or false to use the CPU backend.`;
      return done(warning);
    }
    refused.push({ gpu: llama.gpu, devices, reason });
    // Without a binding file seen the record could not tell a changed binary: not remembered.
    if (bindingPath !== undefined) probed.push({ gpu: llama.gpu, devices, reason, bindingPath });
    await llama.dispose();
    // node-llama-cpp ignoring `exclude` would load the same backend forever: end on the CPU.
    cpuOnly = exclude.includes(llama.gpu);
  }
}

let shared: Promise<LlamaBackend> | undefined;
let sharedGpu: GpuSetting | undefined;

/**
 * One native backend per process: loading it twice costs seconds and memory. `options` count only
 * for the call that opens it (spark doctor opens it first, without a record, to probe for real).
 */
export function getSharedLlamaBackend(
  gpu: GpuSetting,
  options: OpenLlamaBackendOptions = {},
): Promise<LlamaBackend> {
  if (shared === undefined || sharedGpu !== gpu) {
    sharedGpu = gpu;
    shared = openLlamaBackend(gpu, options).then((backend) => {
      // Said once, where the backend is chosen; doctor repeats it as a finding.
      if (backend.warning !== undefined) {
        process.emitWarning(backend.warning, { code: "SPARK_SOFTWARE_GPU" });
      }
      return backend;
    });
  }
  return shared;
}
