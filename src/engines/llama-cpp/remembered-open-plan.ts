// The native context's settings for a model on the host CPU, remembered across processes. Choosing
// them needs node-llama-cpp's vocabulary-only load (the GGUF's metadata parsed in JavaScript, its
// tokenizer loaded: ~0.5 s on the 0.5B shape) and its memory estimate for the context (~0.14 s);
// remembered, the native context (weights and KV cache, ~1 s there) loads while the vocabulary does.
// Only where no GPU takes layers: on a GPU, how many fit depends on the VRAM free at each open.
import { join } from "node:path";
import type { LlamaContextOptions, LlamaModel } from "node-llama-cpp";
import {
  modelRecordKey,
  readCacheRecord,
  writeCacheRecord,
  type ModelMemory,
} from "./cache-folder-record.ts";
import { fitsHostMemory } from "./choose-context-size.ts";

/** The record's file in the cache folder (beside chat-wrappers.json and prefix/). */
export const OPEN_PLAN_FILE = "open-plans.json";
const RECORD_VERSION = 1;
/** Plans remembered at most; the earliest remembered are forgotten first. */
const MAXIMUM_PLANS = 64;

/** What the open chose, and what it takes to choose the same again without the model loaded. */
export interface OpenPlan {
  contextSize: number;
  contextSizeReason: string;
  trainContextSize: number;
  flashAttention: LlamaContextOptions["flashAttention"];
  /**
   * Host memory the context takes (node-llama-cpp's estimate), when its size was chosen from free
   * memory: the plan holds only while that much still fits.
   */
  chosenFromFreeMemory?: { bytes: number };
}

/** What the choice depended on besides the model file. */
export interface OpenPlanSettings {
  sequences: number;
  configuredContextSize: number | undefined;
}

interface OpenPlanRecord {
  version: number;
  /** Newest first. */
  plans: { key: string; plan: OpenPlan }[];
}

/** The remembered plan, if there is one and its context still fits the memory free now. */
export async function rememberedOpenPlan(
  memory: ModelMemory,
  settings: OpenPlanSettings,
): Promise<OpenPlan | undefined> {
  const key = await planKey(memory, settings);
  if (key === undefined) return undefined;
  const record = await readRecord(join(memory.cacheDirectory, OPEN_PLAN_FILE));
  const plan = record.find((entry) => entry.key === key)?.plan;
  if (plan === undefined) return undefined;
  const bytes = plan.chosenFromFreeMemory?.bytes;
  return bytes === undefined || fitsHostMemory(bytes) ? plan : undefined;
}

/**
 * Remembers what an open on the host CPU chose (off the open's path: a failed write only means the
 * next open chooses again). `model` estimates the context's memory when free memory decided it.
 */
export async function rememberOpenPlan(
  memory: ModelMemory,
  settings: OpenPlanSettings,
  plan: Omit<OpenPlan, "chosenFromFreeMemory">,
  model: LlamaModel,
): Promise<void> {
  const key = await planKey(memory, settings);
  if (key === undefined) return;
  let remembered: OpenPlan = plan;
  if (settings.configuredContextSize === undefined) {
    const estimate = await model.fileInsights.estimateContextResourceRequirementsV2({
      contextSize: plan.contextSize,
      modelGpuLayers: 0,
      sequences: settings.sequences,
      ...(plan.flashAttention === undefined ? {} : { flashAttention: plan.flashAttention }),
    });
    remembered = { ...plan, chosenFromFreeMemory: { bytes: estimate.cpuRam } };
  }
  const path = join(memory.cacheDirectory, OPEN_PLAN_FILE);
  const others = (await readRecord(path)).filter((entry) => entry.key !== key);
  const record: OpenPlanRecord = {
    version: RECORD_VERSION,
    plans: [{ key, plan: remembered }, ...others].slice(0, MAXIMUM_PLANS),
  };
  await writeCacheRecord(path, record);
}

/** Whether the loaded model still says what the plan assumed of it. */
export function planMatchesModel(plan: OpenPlan, model: LlamaModel): boolean {
  const trainContextSize = model.fileInsights.trainContextSize ?? model.trainContextSize;
  return (
    trainContextSize === plan.trainContextSize &&
    model.defaultContextFlashAttention === plan.flashAttention
  );
}

/** The model file and node-llama-cpp, and what else the choice depended on. */
function planKey(memory: ModelMemory, settings: OpenPlanSettings): Promise<string | undefined> {
  return modelRecordKey(
    memory.modelIdentity,
    JSON.stringify({
      sequences: settings.sequences,
      configuredContextSize: settings.configuredContextSize ?? null,
    }),
  );
}

async function readRecord(path: string): Promise<OpenPlanRecord["plans"]> {
  const parsed = (await readCacheRecord(path)) as Partial<OpenPlanRecord> | undefined;
  if (parsed?.version !== RECORD_VERSION || !Array.isArray(parsed.plans)) return [];
  return parsed.plans.filter(
    (entry): entry is OpenPlanRecord["plans"][number] =>
      typeof entry === "object" &&
      entry !== null &&
      typeof entry.key === "string" &&
      typeof entry.plan === "object" &&
      entry.plan !== null &&
      Number.isInteger(entry.plan.contextSize) &&
      entry.plan.contextSize > 0 &&
      Number.isInteger(entry.plan.trainContextSize) &&
      typeof entry.plan.contextSizeReason === "string",
  );
}
