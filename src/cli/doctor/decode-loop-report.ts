// Which loop the embedded engine decodes on, found the way the engine finds it: the native addon
// bound to the llama.cpp node-llama-cpp loaded, then (with a llama-cpp model configured) an engine
// opened on that model, whose own choice is reported. Loading the addon alone said "native" on
// machines where the engine then fell back (issue 23).
import type { LlamaCppModelConfig } from "../../config/config-types.ts";
import { collectStream } from "../../engines/collect-stream.ts";
import type { Engine, SamplingPlace } from "../../engines/engine.ts";
import { getSharedLlamaBackend } from "../../engines/llama-cpp/inspect.ts";
import {
  findNativeLoop,
  requestedDecodeLoop,
  type DecodeLoop,
} from "../../engines/llama-cpp/inspect.ts";
import { SparkError } from "../../protocol/spark-error.ts";

/** Keeps doctor light: the engine is opened as configured but with one short sequence. */
const DOCTOR_CONTEXT_SIZE = 512;

export interface DecodeLoopReport {
  loop: DecodeLoop;
  /** What the model or SPARK_DECODE_LOOP asks for (native when unset); undefined when invalid. */
  requested: DecodeLoop | undefined;
  /** The addon's file, when the native loop is in use. */
  addonPath: string | undefined;
  /** The libllama the native loop calls: the one node-llama-cpp loaded. */
  llamaLibrary: string | undefined;
  /** The devices in that llama.cpp's backend registry, e.g. "Vulkan0 (llvmpipe …)", "CPU". */
  devices: string[];
  /**
   * The configured model an engine was opened on to find the loop, with its layers on a GPU and,
   * on the native loop, where one greedy token it generated was sampled (device or host).
   */
  opened:
    | {
        model: string;
        gpuLayers: number;
        sampling?: SamplingPlace;
        /** The context spark serve gives the model, and why. */
        context?: string;
        /** The model's chat template cannot run as the engine would (chat-format-notice.ts). */
        chatFormatNotice?: string;
      }
    | undefined;
  /** Why no engine was opened: no llama-cpp model configured, or it did not load. */
  notOpened: string | undefined;
  /** Why decoding runs on node-llama-cpp's loop (or why the setting is invalid). */
  reason: string | undefined;
}

export interface DecodeLoopTarget {
  name: string;
  model: LlamaCppModelConfig;
}

/**
 * Call after probeLlamaBackend with the same GPU setting: both use the process's one backend.
 * `target` is the model to open the engine on; without one only the binding is checked.
 */
export async function probeDecodeLoop(
  target: DecodeLoopTarget | undefined,
): Promise<DecodeLoopReport> {
  const none = {
    addonPath: undefined,
    llamaLibrary: undefined,
    devices: [],
    opened: undefined,
    notOpened: undefined,
  };
  let requested: DecodeLoop;
  try {
    requested = requestedDecodeLoop(target?.model.decodeLoop);
  } catch (error) {
    const reason = SparkError.from(error).message;
    return { loop: "node-llama-cpp", requested: undefined, ...none, reason };
  }
  const fallback = (reason: string): DecodeLoopReport => ({
    loop: "node-llama-cpp",
    requested,
    ...none,
    reason,
  });
  let found: ReturnType<typeof findNativeLoop>;
  try {
    const backend = await getSharedLlamaBackend(target?.model.gpu ?? "auto");
    found = findNativeLoop(requested, backend);
  } catch (error) {
    return fallback(`node-llama-cpp could not start: ${SparkError.from(error).message}`);
  }
  if (found.addon === undefined) return fallback(found.reason);
  const bound = {
    loop: "native" as const,
    requested,
    addonPath: found.path,
    llamaLibrary: found.binding.llamaLibrary,
    devices: found.binding.devices.map((device) =>
      device.description === "" || device.description === device.name
        ? device.name
        : `${device.name} (${device.description})`,
    ),
    opened: undefined,
    notOpened: undefined,
    reason: undefined,
  };
  if (target === undefined) return { ...bound, notOpened: "no llama-cpp model is configured" };
  return { ...bound, ...(await openAsTheEngine(target)) };
}

/** The engine itself, opened on the model: what it decodes on is the answer. */
async function openAsTheEngine(
  target: DecodeLoopTarget,
): Promise<Pick<DecodeLoopReport, "loop" | "opened" | "notOpened" | "reason">> {
  const { createLlamaCppEngine } = await import("../../engines/llama-cpp/index.ts");
  const { model } = target;
  let engine: Awaited<ReturnType<typeof createLlamaCppEngine>>;
  try {
    engine = await createLlamaCppEngine({
      modelPath: model.path,
      modelName: target.name,
      contextSize: Math.min(model.contextSize ?? DOCTOR_CONTEXT_SIZE, DOCTOR_CONTEXT_SIZE),
      sequences: 1,
      gpu: model.gpu,
      ...(model.threads === undefined ? {} : { threads: model.threads }),
      ...(model.decodeLoop === undefined ? {} : { decodeLoop: model.decodeLoop }),
      ...(model.deviceSampling === undefined ? {} : { deviceSampling: model.deviceSampling }),
    });
  } catch (error) {
    // The model's own check reports why it does not load; the binding above still stands.
    const notOpened = SparkError.from(error).message;
    return { loop: "native", opened: undefined, notOpened, reason: undefined };
  }
  try {
    const choice = await engine.contextChoiceFor(model.contextSize, model.sequences);
    const opened = {
      model: target.name,
      gpuLayers: engine.gpuLayers,
      context: `${choice.contextSize} tokens a sequence (${choice.reason})`,
      ...(engine.loadNotice === undefined ? {} : { chatFormatNotice: engine.loadNotice }),
    };
    return engine.decodeLoop === "native"
      ? {
          loop: "native",
          opened: { ...opened, ...(await samplingOf(engine)) },
          notOpened: undefined,
          reason: undefined,
        }
      : {
          loop: "node-llama-cpp",
          opened,
          notOpened: undefined,
          reason: engine.decodeLoopFallbackReason ?? "unknown",
        };
  } finally {
    await engine.dispose();
  }
}

/** Where the engine samples: one greedy token, generated as a request would be. */
async function samplingOf(engine: Pick<Engine, "stream">): Promise<{ sampling?: SamplingPlace }> {
  const result = await collectStream(
    engine.stream({
      messages: [{ role: "user", content: "hi" }],
      sampling: { temperature: 0, maxOutputTokens: 1 },
    }),
  );
  const sampling = result.timings?.sampling;
  return sampling === undefined ? {} : { sampling };
}
